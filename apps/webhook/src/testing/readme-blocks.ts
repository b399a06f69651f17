// Test helper: the fenced code blocks of a Markdown file that name themselves with
// `kfx-check=<name>` in their info string, so that a test runs exactly what a reader copies.
import { readFileSync } from 'node:fs';

const FENCE = /^(`{3,}|~{3,})(.*)$/;
const CHECK = /(?:^|\s)kfx-check=([\w.-]+)(?=\s|$)/;

/** The text of the block named `name` in `file`; throws naming the file when there is none. */
export function readmeBlock(file: string, name: string): string {
  const lines = readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const [, fence, info = ''] = FENCE.exec(lines[i] ?? '') ?? [];
    if (fence === undefined || CHECK.exec(info)?.[1] !== name) continue;
    const end = lines.findIndex((line, j) => j > i && line.trimEnd() === fence);
    if (end === -1)
      throw new Error(`${file}:${i + 1}: the block kfx-check=${name} is never closed`);
    return `${lines.slice(i + 1, end).join('\n')}\n`;
  }
  throw new Error(`${file} has no block kfx-check=${name}`);
}
