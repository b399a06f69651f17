// Container logs on the remote node, kept as a kubelet keeps them: one file per container in the
// CRI format (`<RFC 3339 nano> <stdout|stderr> <F|P> <text>`, F ending a line, P a piece of one),
// written as the process prints, and read back as `kubectl logs` shows them: the text, with
// `timestamps` each line's time in front, with `tailLines` only the last lines.
import { appendFileSync } from 'node:fs';
import type { Readable } from 'node:stream';

const stamp = () => new Date().toISOString().replace('Z', '000000Z');

/** Appends what `stream` prints to `file`, a line at a time; resolves when it ends. */
export function recordStream(
  stream: Readable,
  name: 'stdout' | 'stderr',
  file: string,
): Promise<void> {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    if (lines.length > 0) {
      const at = stamp();
      appendFileSync(file, lines.map((line) => `${at} ${name} F ${line}\n`).join(''));
    }
  });
  return new Promise((resolve) => {
    stream.on('close', () => {
      if (rest) appendFileSync(file, `${stamp()} ${name} P ${rest}\n`);
      rest = '';
      resolve();
    });
  });
}

export interface LogLine {
  time: string;
  stream: string;
  /** The text, with its newline when the line ended. */
  text: string;
}

/** The entries of a CRI log (a last line still being written is left out). */
export function parseCriLog(content: string): LogLine[] {
  const entries: LogLine[] = [];
  for (const line of content.split('\n').slice(0, -1)) {
    const match = /^(\S+) (stdout|stderr) ([FP]) ?(.*)$/.exec(line);
    if (!match) continue;
    const [, time = '', stream = '', tag, text = ''] = match;
    entries.push({ time, stream, text: tag === 'F' ? `${text}\n` : text });
  }
  return entries;
}

export interface LogView {
  tailLines?: number | undefined;
  timestamps?: boolean | undefined;
}

/** The log as `kubectl logs` prints it. */
export function renderLog(entries: readonly LogLine[], view: LogView = {}): string {
  const shown =
    view.tailLines === undefined
      ? entries
      : entries.slice(Math.max(0, entries.length - view.tailLines));
  return shown.map((e) => (view.timestamps ? `${e.time} ${e.text}` : e.text)).join('');
}
