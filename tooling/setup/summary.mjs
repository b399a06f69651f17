#!/usr/bin/env node
// Sums every package's vitest JSON report (.reports/vitest.json) into the one line CI reads:
// "N passed, N failed" (", N skipped" when any were skipped). A test file that failed to load
// has no test results of its own; it counts as one failure so it cannot pass unnoticed.
// Every failure is named above that line (package, file, test, first line of the message), so a
// log cut to its last lines still says what broke.
// Usage: node tooling/setup/summary.mjs [--exit-code N]
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
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
const failures = [];
const firstLine = (messages) =>
  String(messages?.[0] ?? '')
    .split('\n')
    .find((line) => line.trim() !== '')
    ?.trim()
    .slice(0, 300) ?? '';
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
      const where = `${group}/${name}/${relative(join(dir, name), file.name ?? '')}`;
      const results = file.assertionResults ?? [];
      if (file.status === 'failed' && results.length === 0) {
        failed += 1;
        failures.push(`${where}: ${firstLine([file.message]) || 'failed to load'}`);
      }
      for (const test of results) {
        if (test.status !== 'failed') continue;
        // Tests of the integration-oldest project run a second time on the oldest minor.
        const minor = test.meta?.kubernetesMinor === 'oldest' ? ' (oldest Kubernetes minor)' : '';
        failures.push(
          `${where}${minor} > ${test.fullName ?? test.title}: ${firstLine(test.failureMessages)}`,
        );
      }
    }
  }
}
for (const failure of failures) console.log(`FAILED ${failure}`);
if (exitCode !== 0 && failed === 0) {
  console.log(
    `npm test exited with ${exitCode} outside any test (set-up, build, lint or typecheck).`,
  );
  failed = 1;
}
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
