// A real pytest run (when the machine has one) hands its JUnit report over through the log,
// both ways docs/uat-runner/junit.md describes: the example conftest.py, and --junit-file's
// shell wrapper.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { JunitCollector, junitCounts } from './junit.js';
import { wrapWithJunitFile } from './junit-wrapper.js';

const hasPytest = (() => {
  try {
    execFileSync('python3', ['-m', 'pytest', '--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const dir = mkdtempSync(join(tmpdir(), 'kfx-pytest-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function suite(name: string, withConftest: boolean): string {
  const folder = join(dir, name);
  execFileSync('mkdir', ['-p', folder]);
  writeFileSync(
    join(folder, 'test_sample.py'),
    [
      'import pytest',
      'def test_passes(): assert True',
      'def test_fails(): assert 1 == 2',
      '@pytest.mark.skip(reason="not here")',
      'def test_skipped(): pass',
      '',
    ].join('\n'),
  );
  if (withConftest) {
    copyFileSync(
      fileURLToPath(new URL('../../examples/pytest/conftest.py', import.meta.url)),
      join(folder, 'conftest.py'),
    );
  }
  return folder;
}

function collect(stdout: string): JunitCollector {
  const collector = new JunitCollector();
  for (const line of stdout.split('\n')) collector.push(line);
  return collector;
}

const pytest = (folder: string, xml: string) => [
  'python3',
  '-m',
  'pytest',
  '-p',
  'no:cacheprovider',
  `--junitxml=${xml}`,
  folder,
];

// A real pytest start takes seconds on a busy machine: far past the unit tests' default limit.
describe.skipIf(!hasPytest)('JUnit from a real pytest run', { timeout: 120_000 }, () => {
  it('comes through the log with the example conftest.py', () => {
    const folder = suite('conftest', true);
    const [command = '', ...args] = pytest(folder, join(folder, 'junit.xml'));
    const run = spawnSync(command, args, { encoding: 'utf8' });
    expect(run.status).toBe(1);
    const collector = collect(run.stdout);
    expect(collector.blocks).toBe(1);
    expect(junitCounts(collector.xml ?? '')).toEqual({
      tests: 3,
      failures: 1,
      errors: 0,
      skipped: 1,
    });
  });

  it('comes through the log with --junit-file, keeping pytest exit code', () => {
    const folder = suite('wrapper', false);
    const xml = join(folder, 'report.xml');
    const [command = '', ...args] = wrapWithJunitFile(pytest(folder, xml), xml);
    const run = spawnSync(command, args, { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(junitCounts(collect(run.stdout).xml ?? '')).toEqual({
      tests: 3,
      failures: 1,
      errors: 0,
      skipped: 1,
    });
  });
});
