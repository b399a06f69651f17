// A unified diff of two Kubernetes objects rendered as YAML, for `kfx preview`: what a person
// reviewing a mutation wants to read. Line-based longest common subsequence after trimming the
// common head and tail, which for append-only mutations leaves almost nothing to compare.
import { stringify } from 'yaml';

export interface DiffOptions {
  /** Header names. Default `before` and `after`. */
  fromLabel?: string;
  toLabel?: string;
  /** Unchanged lines shown around each change. Default 3. */
  context?: number;
}

interface Edit {
  op: ' ' | '-' | '+';
  line: string;
}

function editScript(a: readonly string[], b: readonly string[]): Edit[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head += 1;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  ) {
    tail += 1;
  }
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  // lengths[i][j]: LCS length of x[i..] and y[j..], row-major in one array.
  const width = y.length + 1;
  const lengths = new Uint32Array((x.length + 1) * width);
  for (let i = x.length - 1; i >= 0; i -= 1) {
    for (let j = y.length - 1; j >= 0; j -= 1) {
      lengths[i * width + j] =
        x[i] === y[j]
          ? (lengths[(i + 1) * width + j + 1] ?? 0) + 1
          : Math.max(lengths[(i + 1) * width + j] ?? 0, lengths[i * width + j + 1] ?? 0);
    }
  }
  // On a tie the removal comes first, as diff(1) prints it.
  const middle: Edit[] = [];
  let i = 0;
  let j = 0;
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) {
      middle.push({ op: ' ', line: x[i++] ?? '' });
      j += 1;
    } else if (
      j < y.length &&
      (i === x.length || (lengths[i * width + j + 1] ?? 0) > (lengths[(i + 1) * width + j] ?? 0))
    ) {
      middle.push({ op: '+', line: y[j++] ?? '' });
    } else {
      middle.push({ op: '-', line: x[i++] ?? '' });
    }
  }
  const same = (line: string): Edit => ({ op: ' ', line });
  return [...a.slice(0, head).map(same), ...middle, ...a.slice(a.length - tail).map(same)];
}

/** Unified diff of two line lists; empty when they are equal. */
export function diffLines(a: readonly string[], b: readonly string[], options: DiffOptions = {}) {
  const context = options.context ?? 3;
  const edits = editScript(a, b);
  const changed = edits.flatMap((edit, index) => (edit.op === ' ' ? [] : [index]));
  if (changed.length === 0) return '';
  const out = [`--- ${options.fromLabel ?? 'before'}`, `+++ ${options.toLabel ?? 'after'}`];
  let k = 0;
  while (k < changed.length) {
    const start = Math.max(0, (changed[k] ?? 0) - context);
    let end = (changed[k] ?? 0) + context + 1;
    while (k + 1 < changed.length && (changed[k + 1] ?? 0) - context <= end) {
      k += 1;
      end = (changed[k] ?? 0) + context + 1;
    }
    k += 1;
    end = Math.min(end, edits.length);
    const before = edits.slice(0, start);
    const hunk = edits.slice(start, end);
    const aStart = before.filter((e) => e.op !== '+').length;
    const bStart = before.filter((e) => e.op !== '-').length;
    const aCount = hunk.filter((e) => e.op !== '+').length;
    const bCount = hunk.filter((e) => e.op !== '-').length;
    out.push(
      `@@ -${aStart + (aCount > 0 ? 1 : 0)},${aCount} +${bStart + (bCount > 0 ? 1 : 0)},${bCount} @@`,
    );
    for (const edit of hunk) out.push(`${edit.op}${edit.line}`);
  }
  return `${out.join('\n')}\n`;
}

function yamlLines(value: unknown): string[] {
  // lineWidth 0: a long NO_PROXY value stays on one line instead of being folded.
  return stringify(value, { lineWidth: 0 }).replace(/\n$/, '').split('\n');
}

/** Unified diff of two objects as YAML, e.g. a Pod before and after the injector. */
export function renderDiff(before: unknown, after: unknown, options: DiffOptions = {}): string {
  return diffLines(yamlLines(before), yamlLines(after), options);
}
