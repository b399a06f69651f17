// Plain output for CI logs: one timestamped line per event, nothing redrawn, no colour.
import type { RunEvent, UatResult } from '@kfx/uat-runner';
import { formatDuration } from '@kfx/uat-runner/options';
import { artifactPlaces, resultLine, type Output, type Renderer } from './common.js';

const ICONS = { start: '▶', done: '✓', failed: '✗', skipped: '-' } as const;

export class PlainRenderer implements Renderer {
  constructor(
    private readonly output: Output,
    private readonly now: () => Date = () => new Date(),
  ) {}

  event(event: RunEvent): void {
    this.#line(plainText(event));
  }

  result(result: UatResult): void {
    for (const where of artifactPlaces(result)) this.#line(`Artifacts: ${where}`);
    this.#line(`${result.exitCode === 0 ? '✓' : '✗'} ${resultLine(result)}`);
  }

  close(): void {
    // Nothing is animated.
  }

  #line(text: string): void {
    this.output.write(`${this.now().toISOString()} ${text}\n`);
  }
}

export function plainText(event: RunEvent): string {
  switch (event.type) {
    case 'step': {
      const took = event.elapsedMs === undefined ? '' : ` (${formatDuration(event.elapsedMs)})`;
      return `${ICONS[event.status]} ${event.message}${event.status === 'start' ? '' : took}`;
    }
    case 'progress':
      return `  … ${event.message}`;
    case 'log':
      return `  │ ${event.text}`;
    case 'junit':
      return `  │ (a JUnit report of ${event.lines} lines: kept for junit.xml)`;
    case 'warning':
      return `  ! ${event.message}`;
  }
}
