// Streams one container's log live (`follow=true`) and keeps following when the stream breaks:
// each new stream starts from the last second seen and skips the lines already delivered, so a
// dropped connection, an API server restart or a kubelet that ends the stream early costs no
// line and repeats none. `finish()` ends following and reads what is left without `follow`,
// which is also how the log of a container that ended before following began is collected.
import { sleep, type KubeClient } from '@kfx/kube-runtime/client';
import { type Logger, messageOf } from '@kfx/kube-runtime/serving';
import { LineSplitter, LogCursor, parseLogLine, type LogLine } from './log-lines.js';

export interface LogFollowerOptions {
  client: KubeClient;
  namespace: string;
  pod: string;
  container: string;
  onLine: (line: LogLine) => void;
  logger?: Logger | undefined;
  /** First delay after a failed or empty stream; doubles to 5 s. Default 250 ms. */
  retryMs?: number | undefined;
}

export interface LogFollowResult {
  lines: number;
  /** Streams opened (1 when nothing broke). */
  streams: number;
  /** Why the log could not be read, when the final read failed. */
  error?: string | undefined;
}

export class LogFollower {
  readonly #options: LogFollowerOptions;
  readonly #cursor = new LogCursor();
  readonly #stop = new AbortController();
  #running: Promise<void> | undefined;
  #lines = 0;
  #streams = 0;
  #lastError: string | undefined;

  constructor(options: LogFollowerOptions) {
    this.#options = options;
  }

  get #path(): string {
    const { namespace, pod } = this.#options;
    return `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/log`;
  }

  start(): void {
    this.#running ??= this.#follow();
  }

  /** Stops following, reads the rest of the log, and says how it went. */
  async finish(): Promise<LogFollowResult> {
    this.#stop.abort(new Error('log following finished'));
    await this.#running;
    try {
      this.#cursor.resume();
      const text = await this.#options.client.requestText('GET', this.#path, {
        query: this.#query(false),
      });
      const splitter = new LineSplitter();
      for (const line of splitter.push(text)) this.#deliver(line);
      const last = splitter.flush();
      if (last !== undefined) this.#deliver(last);
      this.#lastError = undefined;
    } catch (error) {
      this.#lastError = messageOf(error);
    }
    return { lines: this.#lines, streams: this.#streams, error: this.#lastError };
  }

  async #follow(): Promise<void> {
    const signal = this.#stop.signal;
    const { client, logger } = this.#options;
    const baseMs = this.#options.retryMs ?? 250;
    let quiet = 0;
    while (!signal.aborted) {
      const before = this.#lines;
      try {
        this.#cursor.resume();
        const response = await client.stream('GET', this.#path, {
          query: this.#query(true),
          signal,
        });
        this.#streams++;
        // A line cut by a broken stream is dropped here; the next stream sends it whole.
        const splitter = new LineSplitter();
        for await (const chunk of response as AsyncIterable<Buffer>) {
          for (const line of splitter.push(chunk)) this.#deliver(line);
        }
        this.#lastError = undefined;
      } catch (error) {
        if (this.#stopped()) break;
        this.#lastError = messageOf(error);
        logger?.debug({ err: error, pod: this.#options.pod }, 'log stream failed, reconnecting');
      }
      quiet = this.#lines > before ? 0 : quiet + 1;
      await sleep(Math.min(5000, baseMs * 2 ** Math.min(quiet, 5)), signal).catch(() => undefined);
    }
  }

  #stopped(): boolean {
    return this.#stop.signal.aborted;
  }

  #query(follow: boolean) {
    return {
      container: this.#options.container,
      timestamps: true,
      follow: follow ? true : undefined,
      sinceTime: this.#cursor.sinceTime(),
    };
  }

  #deliver(raw: string): void {
    const line = parseLogLine(raw);
    if (!this.#cursor.accept(line)) return;
    this.#lines++;
    this.#options.onLine(line);
  }
}
