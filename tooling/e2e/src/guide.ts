// The migration guides in docs/migration carry their checks as fenced code blocks whose info
// string names them (```yaml kfx-check=controller-values). This module finds those blocks, so
// that the tests run exactly what a reader copies, and says which guide and block is wrong when
// one is missing or malformed.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseYamlDocuments } from '@kfx/testenv';

export const GUIDES_DIR = fileURLToPath(new URL('../../../docs/migration/', import.meta.url));

export interface CheckBlock {
  name: string;
  /** The first word of the info string: yaml, sh, text… */
  language: string;
  text: string;
  /** 1-based line of the opening fence. */
  line: number;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const CHECK = /(?:^|\s)kfx-check=([A-Za-z0-9][\w.-]*)(?=\s|$)/;

/** Every named check block of a Markdown text, by name; `source` names the text in errors. */
export function checkBlocks(markdown: string, source: string): Map<string, CheckBlock> {
  const blocks = new Map<string, CheckBlock>();
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] ?? '');
    if (!open) continue;
    const [, fence = '', info = ''] = open;
    const body: string[] = [];
    let closed = false;
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j] ?? '';
      const [, marks = '', rest = ''] = FENCE.exec(line) ?? [];
      if (marks.startsWith(fence[0] ?? '`') && marks.length >= fence.length && !rest.trim()) {
        closed = true;
        break;
      }
      body.push(line);
    }
    if (!closed) throw new Error(`${source}:${i + 1}: the code block opened here is never closed`);
    const name = CHECK.exec(info)?.[1];
    if (name !== undefined) {
      const previous = blocks.get(name);
      if (previous) {
        throw new Error(
          `${source}:${i + 1}: a second block named kfx-check=${name} (the first is at line ${previous.line})`,
        );
      }
      const language = info.trim().split(/\s+/)[0] ?? '';
      blocks.set(name, { name, language, text: `${body.join('\n')}\n`, line: i + 1 });
    }
    i = j;
  }
  return blocks;
}

export interface Guide {
  file: string;
  blocks: Map<string, CheckBlock>;
  /** The text of a named block; throws naming the guide and the names it does have. */
  text(name: string): string;
  /** The YAML documents of a named block (empty documents dropped), as plain JSON. */
  yaml<T = Record<string, unknown>>(name: string): T[];
}

/** Reads `docs/migration/<file>` (or any Markdown file given by absolute path). */
export function readGuide(file: string, dir = GUIDES_DIR): Guide {
  const path = file.startsWith('/') ? file : `${dir}${file}`;
  const blocks = checkBlocks(readFileSync(path, 'utf8'), file);
  const block = (name: string): CheckBlock => {
    const found = blocks.get(name);
    if (found) return found;
    const known = [...blocks.keys()].join(', ') || 'none';
    throw new Error(`${file} has no block kfx-check=${name} (it has: ${known})`);
  };
  return {
    file,
    blocks,
    text: (name) => block(name).text,
    yaml<T>(name: string): T[] {
      const found = block(name);
      return parseYamlDocuments<T>(found.text, `${file}:${found.line}: kfx-check=${name}`);
    },
  };
}
