#!/usr/bin/env node
// Sums every package's vitest JSON report (.reports/vitest.json) into the one line CI reads:
// "N passed, N failed" (", N skipped" when any were skipped). A test file that failed to load
// has no test results of its own; it counts as one failure so it cannot pass unnoticed.
// Usage: node tooling/setup/summary.mjs [--exit-code N]
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const exitCode = Number(option('--exit-code') ?? 0);

let passed = 0;
let failed = 0;
let skipped = 0;
for (const group of ['packages', 'apps', 'tooling']) {
  const dir = join(root, group);
  if (!existsSync(dir)) continue;
  for (const name of readdirSync(dir)) {
    const report = join(dir, name, '.reports', 'vitest.json');
    if (!existsSync(report)) continue;
    const r = JSON.parse(readFileSync(report, 'utf8'));
    passed += r.numPassedTests ?? 0;
    failed += r.numFailedTests ?? 0;
    skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
    for (const file of r.testResults ?? []) {
      if (file.status === 'failed' && (file.assertionResults ?? []).length === 0) failed += 1;
    }
  }
}
if (exitCode !== 0 && failed === 0) {
  console.log(
    `npm test exited with ${exitCode} outside any test (set-up, build, lint or typecheck).`,
  );
  failed = 1;
}
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
