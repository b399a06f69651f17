// The check of docs/migration/from-scripted-uat-driver.md: the guide's `kfx uat run` command line,
// word for word, run by the built kfx against a control plane whose kwok node runs the Job's Pod
// and serves its log, behind a proxy that does not exist: exit 0, the artifacts the guide names,
// nothing left behind.
// It owns its control plane: the guide's command line, word for word, names a Profile
// (`test-kubeflow`) of a fixed name.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  appendLog,
  serveLogsFromFile,
  startControlPlane,
  waitFor,
  type ControlPlane,
} from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Completed } from '../apps.js';
import { exists } from '../cluster.js';
import { readGuide } from '../guide.js';
import { runGuideCommand } from '../guide-commands.js';
import { commandLines } from '../shell-words.js';

const guide = readGuide('from-scripted-uat-driver.md');
const dir = mkdtempSync(join(tmpdir(), 'kfx-e2e-uat-'));
const deadProxy = 'http://127.0.0.1:9';
let env: ControlPlane | undefined;
let run: Completed | undefined;

beforeAll(async () => {
  const [command, ...more] = commandLines(guide.text('uat-run'));
  if (command?.[0] !== 'kfx' || more.length > 0) {
    throw new Error(`${guide.file}: kfx-check=uat-run should hold one kfx command line`);
  }
  env = await startControlPlane({ components: ['controller-manager', 'scheduler', 'kwok'] });
  writeFileSync(join(dir, 'params.env'), guide.text('params-env'));
  // What the suite prints: a JUnit block between the markers `--junit-file` makes it print.
  const log = join(dir, 'suite.log');
  writeFileSync(log, '');
  appendLog(
    log,
    'collected 3 items / 1 deselected / 2 selected',
    'tests/test_notebooks.py::test_kfp_v2 PASSED',
    '--- kfx:junit begin ---',
    '<testsuite name="pytest" tests="2" failures="0" errors="0" skipped="0"/>',
    '--- kfx:junit end ---',
  );
  await serveLogsFromFile(env.kubeconfigPath, { namespace: 'test-kubeflow', file: log });
  run = await runGuideCommand(command, {
    cwd: dir,
    kubeconfigPath: env.kubeconfigPath,
    env: {
      CI: 'true',
      HTTP_PROXY: deadProxy,
      HTTPS_PROXY: deadProxy,
      http_proxy: deadProxy,
      https_proxy: deadProxy,
      NO_PROXY: '',
      no_proxy: '',
    },
  });
});

afterAll(async () => {
  await env?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe(guide.file, () => {
  it('exits 0 and says the suite passed', () => {
    expect(run?.stderr).toBe('');
    expect(run?.code, run?.stdout).toBe(0);
    expect(run?.stdout).toContain('tests/test_notebooks.py::test_kfp_v2 PASSED');
  });

  it('leaves uat.log, junit.xml and summary.json in uat-results', () => {
    const results = join(dir, 'uat-results');
    expect(readFileSync(join(results, 'uat.log'), 'utf8')).toContain('test_kfp_v2 PASSED');
    expect(readFileSync(join(results, 'junit.xml'), 'utf8')).toContain('tests="2" failures="0"');
    const summary = JSON.parse(readFileSync(join(results, 'summary.json'), 'utf8')) as {
      outcome: string;
      profile: { name: string; created: boolean };
      cleanup: { leftovers: unknown[] };
    };
    expect(summary).toMatchObject({
      outcome: 'passed',
      profile: { name: 'test-kubeflow', created: true },
      cleanup: { leftovers: [] },
    });
  });

  it('leaves no Profile test-kubeflow and no namespace behind', async () => {
    const kubeconfig = env?.kubeconfigPath ?? '';
    await waitFor(
      async () =>
        (await exists(kubeconfig, ['profile', 'test-kubeflow'])) ||
        (await exists(kubeconfig, ['namespace', 'test-kubeflow']))
          ? { done: false, saw: 'still there' }
          : { done: true, value: undefined },
      { description: 'the test Profile and its namespace to be gone', timeoutMs: 60_000 },
    );
  });
});
