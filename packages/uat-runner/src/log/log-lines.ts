// Container log lines as the API serves them with `timestamps=true` ("<RFC 3339> <text>"), and
// the bookkeeping that lets a broken log stream be resumed without losing or repeating lines:
// the stream restarts from the last second seen (`sinceTime` has second precision) and the
// lines already seen in that stretch are skipped by timestamp and count.
import { StringDecoder } from 'node:string_decoder';

export interface LogLine {
  /** UTC, nine fraction digits, so that timestamps compare as strings. */
  timestamp?: string | undefined;
  text: string;
}

/** Turns chunks (cut anywhere, even inside a UTF-8 character) into whole lines. */
export class LineSplitter {
  readonly #decoder = new StringDecoder('utf8');
  #rest = '';

  push(chunk: Buffer | string): string[] {
    this.#rest += typeof chunk === 'string' ? chunk : this.#decoder.write(chunk);
    const lines = this.#rest.split('\n');
    this.#rest = lines.pop() ?? '';
    return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  }

  /** What is left after the last newline (a final line without one). */
  flush(): string | undefined {
    const rest = this.#rest + this.#decoder.end();
    this.#rest = '';
    return rest === '' ? undefined : rest;
  }
}

const STAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d) ?/;

export function parseLogLine(line: string): LogLine {
  const match = STAMP.exec(line);
  if (!match) return { text: line };
  const [stamp, seconds = '', fraction = '', zone = 'Z'] = match;
  const utc = zone === 'Z' ? seconds : new Date(`${seconds}${zone}`).toISOString().slice(0, 19);
  return { timestamp: `${utc}.${fraction.padEnd(9, '0')}Z`, text: line.slice(stamp.length) };
}

/** Where a log stream got to, so that the next one neither repeats nor skips lines. */
export class LogCursor {
  #last: string | undefined;
  #seenAtLast = 0;
  #skip = 0;

  /** The `sinceTime` for the next stream: the second of the last line seen. */
  sinceTime(): string | undefined {
    return this.#last === undefined ? undefined : `${this.#last.slice(0, 19)}Z`;
  }

  /** A new stream starts: its first lines repeat what was already seen. */
  resume(): void {
    this.#skip = this.#seenAtLast;
  }

  /** True when the line is new; false when an earlier stream already delivered it. */
  accept(line: LogLine): boolean {
    const stamp = line.timestamp;
    if (stamp === undefined) return true;
    if (this.#last !== undefined && stamp < this.#last) return false;
    if (stamp === this.#last) {
      if (this.#skip > 0) {
        this.#skip--;
        return false;
      }
      this.#seenAtLast++;
      return true;
    }
    this.#last = stamp;
    this.#seenAtLast = 1;
    this.#skip = 0;
    return true;
  }
}
