// The relative links of a Markdown text and the anchors its headings get on GitHub, so a test
// can check that the links between READMEs and docs/ pages lead somewhere.

export interface RelativeLink {
  /** 1-based line of the link. */
  line: number;
  /** As written, e.g. `../../docs/a/b.md#c`. */
  target: string;
  /** The file part, `''` for a link into the same file. */
  path: string;
  anchor: string | undefined;
}

/** The lines of a Markdown text outside fenced code blocks, inline code blanked. */
function proseLines(markdown: string): { line: number; text: string }[] {
  const lines: { line: number; text: string }[] = [];
  let fence: string | undefined;
  for (const [index, text] of markdown.split('\n').entries()) {
    const opening = /^\s*(`{3,}|~{3,})/.exec(text)?.[1];
    if (opening && (fence === undefined || opening.startsWith(fence))) {
      fence = fence === undefined ? opening : undefined;
      continue;
    }
    if (fence === undefined) lines.push({ line: index + 1, text: text.replace(/`[^`]*`/g, '``') });
  }
  return lines;
}

/** Links (`[text](target)`, images too) that are not URLs with a scheme. */
export function relativeLinks(markdown: string): RelativeLink[] {
  const links: RelativeLink[] = [];
  for (const { line, text } of proseLines(markdown)) {
    for (const match of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = match[1] ?? '';
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const hash = target.indexOf('#');
      const path = hash < 0 ? target : target.slice(0, hash);
      const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
      links.push({ line, target, path: decodeURIComponent(path), anchor });
    }
  }
  return links;
}

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown text's headings, a repeated one numbered as GitHub does (`-1`, …). */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | undefined;
  for (const text of markdown.split('\n')) {
    const opening = /^\s*(`{3,}|~{3,})/.exec(text)?.[1];
    if (opening && (fence === undefined || opening.startsWith(fence))) {
      fence = fence === undefined ? opening : undefined;
      continue;
    }
    const heading = fence === undefined ? /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(text)?.[1] : undefined;
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}
