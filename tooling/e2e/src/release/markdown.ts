// The fenced code blocks of a README section, so that a test runs the example a reader copies
// and compares its output with the block the README shows.
interface FencedBlock {
  /** The info string's first word: ts, sh, diff… */
  language: string;
  text: string;
}

/** The fenced blocks between `heading` (a whole line, e.g. `### Offline preview`) and the next heading of any level. */
function blocksUnder(markdown: string, heading: string, source: string): FencedBlock[] {
  const lines = markdown.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`${source}: no "${heading}" heading`);
  const blocks: FencedBlock[] = [];
  let open: { fence: string; language: string; body: string[] } | undefined;
  for (const line of lines.slice(start + 1)) {
    if (open) {
      if (line.trim() === open.fence) {
        blocks.push({ language: open.language, text: `${open.body.join('\n')}\n` });
        open = undefined;
      } else {
        open.body.push(line);
      }
      continue;
    }
    if (/^#{1,6} /.test(line)) break;
    const fence = /^(`{3,}|~{3,})\s*(\S*)/.exec(line);
    if (fence) open = { fence: fence[1] ?? '```', language: fence[2] ?? '', body: [] };
  }
  if (open) throw new Error(`${source}: a block under "${heading}" is never closed`);
  return blocks;
}

/** The one block of `language` under `heading`; throws naming the README when there is not exactly one. */
export function blockUnder(
  markdown: string,
  heading: string,
  language: string,
  source: string,
): string {
  const found = blocksUnder(markdown, heading, source).filter((b) => b.language === language);
  if (found.length !== 1) {
    throw new Error(
      `${source}: expected one \`\`\`${language} block under "${heading}", found ${found.length}`,
    );
  }
  return found[0]?.text ?? '';
}
