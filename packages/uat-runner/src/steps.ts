// Timing and reporting of the run's steps: each start, end or failure becomes an event for the
// caller and a record for the summary, so the two always agree.
import type { Reporter, StepName } from './events.js';
import type { StepRecord } from './run-options.js';

export class Steps {
  readonly records: StepRecord[] = [];
  readonly #started = new Map<StepName, { at: number; message: string }>();

  constructor(private readonly reporter: Reporter) {}

  start(step: StepName, message: string): void {
    this.#started.set(step, { at: performance.now(), message });
    this.reporter({ type: 'step', step, status: 'start', message });
  }

  progress(step: StepName, message: string): void {
    this.reporter({ type: 'progress', step, message });
  }

  done(step: StepName, message: string): void {
    this.#end(step, 'done', message);
  }

  skip(step: StepName, message: string): void {
    this.#end(step, 'skipped', message);
  }

  fail(step: StepName, message: string): void {
    this.#end(step, 'failed', message);
  }

  /** Marks every step still open as failed (the run ended inside them). */
  failOpen(message: string): void {
    for (const step of this.#started.keys()) this.#end(step, 'failed', message);
  }

  isOpen(step: StepName): boolean {
    return this.#started.has(step);
  }

  /** Runs `body` as the step; its result's text closes the step. */
  async run<T>(
    step: StepName,
    message: string,
    body: () => Promise<T>,
    done: (value: T) => string,
  ): Promise<T> {
    this.start(step, message);
    const value = await body();
    this.done(step, done(value));
    return value;
  }

  #end(step: StepName, status: StepRecord['status'], message: string): void {
    const started = this.#started.get(step);
    this.#started.delete(step);
    const elapsedMs = started ? performance.now() - started.at : 0;
    this.records.push({ step, status, message, durationSeconds: Math.round(elapsedMs) / 1000 });
    this.reporter({ type: 'step', step, status, message, elapsedMs });
  }
}
