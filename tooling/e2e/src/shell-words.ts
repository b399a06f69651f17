// The guides show commands as a reader types them (`kfx uat run \` on several lines, quoted
// arguments). The tests run those exact command lines without a shell, so this splits them the
// way a POSIX shell splits simple commands, and refuses what only a shell could run (pipes,
// redirections, variables), naming it, rather than running something else than the guide says.
const SPECIAL = new Set(['|', '&', ';', '<', '>', '$', '`', '(', ')']);

/** One command per logical line of `script` (continuations joined, comments and blanks skipped). */
export function commandLines(script: string): string[][] {
  const joined = script.replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => splitWords(line));
}

/** Words of one command line: quotes removed, backslash escapes honoured. */
export function splitWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line.charAt(i);
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated ' quote in: ${line}`);
      word += line.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < line.length && line.charAt(j) !== '"'; j++) {
        const d = line.charAt(j);
        if (d === '$' || d === '`') throw new Error(`a shell expansion (${d}) in: ${line}`);
        if (d === '\\' && /["\\$`]/.test(line.charAt(j + 1))) j++;
        word += line.charAt(j);
      }
      if (j >= line.length) throw new Error(`unterminated " quote in: ${line}`);
      inWord = true;
      i = j;
    } else if (c === '\\') {
      word += line.charAt(i + 1);
      inWord = true;
      i++;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else if (c === '#' && !inWord) {
      break;
    } else if (SPECIAL.has(c)) {
      throw new Error(`"${c}" needs a shell, which the check does not run, in: ${line}`);
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}
