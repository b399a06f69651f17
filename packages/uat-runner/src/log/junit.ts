// JUnit XML found in the suite's log between the marker lines, and the counts a summary shows.
// The counts come from the attributes pytest, JUnit and most runners write on <testsuite>;
// the XML itself is kept byte for byte for the CI system to parse properly.
import { JUNIT_BEGIN, JUNIT_END } from './junit-wrapper.js';

export interface JunitCounts {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
}

/** Feeds on log lines; keeps the last complete block between the markers. */
export class JunitCollector {
  #inside: string[] | undefined;
  #xml: string | undefined;
  #blocks = 0;
  #lastLines = 0;

  /** True when the line belongs to a JUnit block (a marker or the XML inside). */
  push(text: string): boolean {
    const trimmed = text.trim();
    if (trimmed === JUNIT_BEGIN) {
      this.#inside = [];
      return true;
    }
    if (!this.#inside) return false;
    if (trimmed === JUNIT_END) {
      this.#xml = `${this.#inside.join('\n').trim()}\n`;
      this.#blocks++;
      this.#lastLines = this.#inside.length + 2;
      this.#inside = undefined;
      return true;
    }
    this.#inside.push(text);
    return true;
  }

  /** The XML of the last complete block. */
  get xml(): string | undefined {
    return this.#xml;
  }

  /** How many complete blocks the log held (the last one wins). */
  get blocks(): number {
    return this.#blocks;
  }

  /** Lines of the last complete block, markers included. */
  get lastBlockLines(): number {
    return this.#lastLines;
  }

  /** True when a begin marker had no end marker (the suite died while printing). */
  get truncated(): boolean {
    return this.#inside !== undefined;
  }
}

const ATTRIBUTES = /([A-Za-z_:][-\w:.]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const match of tag.matchAll(ATTRIBUTES)) {
    const [, name = '', double, single] = match;
    out[name] = double ?? single ?? '';
  }
  return out;
}

/** Counts from the <testsuite> elements (or the <testsuites> root when it has none). */
export function junitCounts(xml: string): JunitCounts | undefined {
  const suites = [...xml.matchAll(/<testsuite(?![s\w-])([^>]*)>/g)].map((m) =>
    attributes(m[1] ?? ''),
  );
  const root = /<testsuites(?![\w-])([^>]*)>/.exec(xml);
  const sources = suites.length > 0 ? suites : root ? [attributes(root[1] ?? '')] : [];
  if (sources.length === 0) return undefined;
  const sum = (name: keyof JunitCounts) =>
    sources.reduce((total, attrs) => total + (Number.parseInt(attrs[name] ?? '0', 10) || 0), 0);
  return {
    tests: sum('tests'),
    failures: sum('failures'),
    errors: sum('errors'),
    skipped: sum('skipped'),
  };
}
