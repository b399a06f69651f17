// `--output json`: one JSON object per line on stdout — every event with its time, then the
// result (the same object as summary.json) with "type": "result". `jq` reads it as it comes.
import type { RunEvent, UatResult } from '@kfx/uat-runner';
import type { Output, Renderer } from './common.js';

export class JsonRenderer implements Renderer {
  constructor(
    private readonly output: Output,
    private readonly now: () => Date = () => new Date(),
  ) {}

  event(event: RunEvent): void {
    this.#write({ time: this.now().toISOString(), ...event });
  }

  result(result: UatResult): void {
    this.#write({ time: this.now().toISOString(), type: 'result', ...result });
  }

  close(): void {
    // Nothing is animated.
  }

  #write(value: object): void {
    this.output.write(`${JSON.stringify(value)}\n`);
  }
}
