// The terminal view: finished steps stay as ✓/✗ lines with their time, the running step is one
// line redrawn in place with a spinner, its elapsed time and what it currently sees, and the
// suite's log scrolls above it. Redrawn lines are cut to the terminal width, since a wrapped
// line cannot be redrawn.
import type { RunEvent, StepName, UatResult } from '@kfx/uat-runner';
import { formatDuration } from '@kfx/uat-runner/options';
import { artifactPlaces, resultLine, type Output, type Renderer } from './common.js';
import { plainText } from './plain.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const CLEAR_LINE = '\r\u001b[2K';

interface Active {
  step: StepName;
  message: string;
  detail?: string | undefined;
  startedAt: number;
}

export class TtyRenderer implements Renderer {
  #active: Active | undefined;
  #timer: NodeJS.Timeout | undefined;
  #frame = 0;
  readonly #color: boolean;

  constructor(
    private readonly output: Output,
    options: { color: boolean },
  ) {
    this.#color = options.color;
  }

  event(event: RunEvent): void {
    if (event.type === 'step' && event.status === 'start') {
      this.#active = { step: event.step, message: event.message, startedAt: performance.now() };
      this.#timer ??= setInterval(() => {
        this.#frame++;
        this.#draw();
      }, 100);
      this.#draw();
      return;
    }
    if (event.type === 'progress') {
      if (this.#active?.step === event.step) this.#active.detail = event.message;
      this.#draw();
      return;
    }
    if (event.type === 'step' && this.#active?.step === event.step) this.#stopSpinner();
    this.#print(this.#styled(event));
    this.#draw();
  }

  result(result: UatResult): void {
    this.close();
    for (const where of artifactPlaces(result)) this.#print(`Artifacts: ${where}`);
    const line = `${result.exitCode === 0 ? '✓' : '✗'} ${resultLine(result)}`;
    this.#print(this.#paint(result.exitCode === 0 ? 32 : 31, line));
  }

  close(): void {
    this.#stopSpinner();
    this.output.write(CLEAR_LINE);
  }

  #stopSpinner(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#active = undefined;
  }

  #styled(event: RunEvent): string {
    const text = plainText(event);
    if (event.type === 'step')
      return this.#paint(event.status === 'failed' ? 31 : event.status === 'done' ? 32 : 2, text);
    if (event.type === 'warning') return this.#paint(33, text);
    if (event.type === 'junit') return this.#paint(2, text);
    return text;
  }

  #print(line: string): void {
    this.output.write(`${CLEAR_LINE}${line}\n`);
  }

  #draw(): void {
    const active = this.#active;
    if (!active) return;
    const frame = FRAMES[this.#frame % FRAMES.length] ?? '';
    const elapsed = formatDuration(performance.now() - active.startedAt);
    const detail = active.detail ? ` — ${active.detail}` : '';
    const line = truncate(
      `${frame} ${active.message} (${elapsed})${detail}`,
      this.output.columns - 1,
    );
    this.output.write(`${CLEAR_LINE}${this.#paint(36, line)}`);
  }

  #paint(code: number, text: string): string {
    return this.#color ? `\u001b[${code}m${text}\u001b[0m` : text;
  }
}

const segmenter = new Intl.Segmenter();

/** Cuts to `width` characters (grapheme clusters, so that no character is split). */
function truncate(text: string, width: number): string {
  const chars = Array.from(segmenter.segment(text), (s) => s.segment);
  return chars.length <= width ? text : `${chars.slice(0, Math.max(0, width - 1)).join('')}…`;
}
