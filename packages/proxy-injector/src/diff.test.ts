import { describe, expect, it } from 'vitest';
import { diffLines, renderDiff } from './diff.js';

describe('unified diff', () => {
  it('is empty for equal objects', () => {
    expect(renderDiff({ a: [1, 2] }, { a: [1, 2] })).toBe('');
  });

  it('shows appended env entries as + lines with their context and hunk header', () => {
    const before = { spec: { containers: [{ name: 'main', env: [{ name: 'A', value: '1' }] }] } };
    const after = structuredClone(before);
    after.spec.containers[0]?.env.push({ name: 'HTTP_PROXY', value: 'http://p:3128' });
    expect(renderDiff(before, after, { fromLabel: 'pod.yaml', toLabel: 'pod.yaml (injected)' }))
      .toBe(`--- pod.yaml
+++ pod.yaml (injected)
@@ -4,3 +4,5 @@
       env:
         - name: A
           value: "1"
+        - name: HTTP_PROXY
+          value: http://p:3128
`);
  });

  it('keeps long values on one line and splits distant changes into separate hunks', () => {
    const long = 'x'.repeat(300);
    expect(renderDiff({ v: 'a' }, { v: long }).split('\n')).toContain(`+v: ${long}`);
    const a = Array.from({ length: 20 }, (_, i) => `line ${i}`);
    const b = [...a];
    b[1] = 'changed 1';
    b[18] = 'changed 18';
    const diff = diffLines(a, b, { context: 2 });
    expect(diff.match(/^@@ /gm)).toHaveLength(2);
    expect(diff).toContain('@@ -1,4 +1,4 @@');
    expect(diff).toContain('@@ -17,4 +17,4 @@');
    expect(diff).toContain('-line 18\n+changed 18');
  });
});
