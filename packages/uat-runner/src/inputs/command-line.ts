// `--command "pytest -x 'tests/kfp test.py'"`: one string split into argv the way a POSIX shell
// splits words (quotes and backslashes), without running a shell, so what CI passes is exactly
// what the container runs. Shell features (pipes, variables) need an explicit `sh -c '...'`.
import { UatInputError } from '../base/outcome.js';

export function splitCommand(text: string, what = '--command'): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charAt(i);
    if (char === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw new UatInputError(`${what}: unterminated ' quote in ${text}`);
      word += text.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (char === '"') {
      const { value, end } = doubleQuoted(text, i, what);
      word += value;
      inWord = true;
      i = end;
    } else if (char === '\\') {
      if (i + 1 >= text.length) throw new UatInputError(`${what}: a trailing backslash in ${text}`);
      word += text.charAt(i + 1);
      inWord = true;
      i++;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += char;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  if (words.length === 0) throw new UatInputError(`${what}: the command is empty`);
  return words;
}

/** Inside double quotes a backslash escapes only `"`, `\`, `$` and a backquote, as in sh. */
function doubleQuoted(text: string, start: number, what: string): { value: string; end: number } {
  let value = '';
  for (let i = start + 1; i < text.length; i++) {
    const char = text.charAt(i);
    if (char === '"') return { value, end: i };
    const next = text.charAt(i + 1);
    if (char === '\\' && ['"', '\\', '$', '`'].includes(next)) {
      value += next;
      i++;
    } else {
      value += char;
    }
  }
  throw new UatInputError(`${what}: unterminated " quote in ${text}`);
}
