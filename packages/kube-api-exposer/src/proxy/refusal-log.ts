// Log lines for refusals that come in floods (connections refused or closed by a limit): the
// first of each limit at once, then at most one line per limit every `intervalMs`, counting
// those in between, so that an attack shows in the log without the log becoming the attack.
// The metrics count every one.
import type { Logger } from 'pino';

export class RefusalLog {
  readonly #logger: Logger;
  readonly #intervalMs: number;
  readonly #last = new Map<string, { at: number; unlogged: number }>();

  constructor(logger: Logger, intervalMs = 10_000) {
    this.#logger = logger;
    this.#intervalMs = intervalMs;
  }

  /** One refusal by `limit`; `fields` describe the latest one (its remote address, …). */
  refused(limit: string, fields: Record<string, unknown>, message: string): void {
    const now = Date.now();
    const last = this.#last.get(limit);
    if (last !== undefined && now - last.at < this.#intervalMs) {
      last.unlogged++;
      return;
    }
    const refused = (last?.unlogged ?? 0) + 1;
    this.#last.set(limit, { at: now, unlogged: 0 });
    this.#logger.warn({ limit, refused, ...fields }, message);
  }
}
