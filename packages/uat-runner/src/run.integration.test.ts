import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1ConfigMap, V1Job } from '@kubernetes/client-node';
import { KubeClient, resources, type ResourceRef } from '@kfx/kube-runtime';
import { KWOK_ANNOTATIONS, startControlPlane, waitFor, type ControlPlane } from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from './events.js';
import { JUNIT_BEGIN, JUNIT_END } from './junit-wrapper.js';
import { runUat } from './run.js';
import type { UatRunOptions } from './run-options.js';
import { appendLog, enableKwokLogs, type KwokLogs } from './testing/kwok-logs.js';

let env: ControlPlane;
let client: KubeClient;
let kwokLogs: KwokLogs;
const dir = mkdtempSync(join(tmpdir(), 'kfx-uat-it-'));

beforeAll(async () => {
  env = await startControlPlane({ components: ['controller-manager', 'scheduler', 'kwok'] });
  client = KubeClient.fromKubeConfig(env.kubeConfig);
  kwokLogs = await enableKwokLogs(env);
});

afterAll(async () => {
  await kwokLogs?.stop();
  client?.close();
  await env?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A suite "log" kwok serves for every pod of `namespace`, and a place for artifacts. */
async function suiteFiles(namespace: string, lines: string[]) {
  const log = join(dir, `${namespace}.log`);
  writeFileSync(log, '');
  appendLog(log, ...lines);
  await kwokLogs.serveNamespace(namespace, log);
  return { log, artifacts: join(dir, `${namespace}-artifacts`) };
}

function recorder() {
  const events: RunEvent[] = [];
  const reporter = (event: RunEvent) => {
    events.push(event);
  };
  const logLines = () => events.flatMap((e) => (e.type === 'log' ? [e.text] : []));
  const stepIndex = (step: string, status: string) =>
    events.findIndex((e) => e.type === 'step' && e.step === step && e.status === status);
  return { events, reporter, logLines, stepIndex };
}

async function gone(ref: ResourceRef, name: string, namespace?: string): Promise<boolean> {
  return client.get(ref, name, { namespace }).then(
    () => false,
    () => true,
  );
}

const junit = `<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" errors="0" failures="1" skipped="0" tests="3"></testsuite></testsuites>`;

function options(namespace: string, extra: Partial<UatRunOptions>): UatRunOptions {
  return {
    client,
    profile: namespace,
    image: 'registry.corp/uats:1',
    command: ['pytest', '-x'],
    controllerWaitMs: 1000,
    ...extra,
  };
}

describe('runUat on a real control plane with kwok', () => {
  it('runs a passing suite: streams its log live, collects JUnit, cleans up, exits 0', async () => {
    const files = await suiteFiles('uat-pass', [
      'collected 3 items',
      'test_kfp.py::test_run PASSED',
    ]);
    const events = recorder();
    let appended = false;
    const result = await runUat(
      options('uat-pass', {
        artifactsDir: files.artifacts,
        env: { SUITE: 'kfp' },
        podAnnotations: { [KWOK_ANNOTATIONS.runFor]: '6s' },
        reporter: (event) => {
          events.reporter(event);
          // Written while the pod runs: it must reach us before the suite ends.
          if (
            event.type === 'step' &&
            event.step === 'suite' &&
            event.status === 'start' &&
            !appended
          ) {
            appended = true;
            setTimeout(() => {
              appendLog(
                files.log,
                'written while running',
                JUNIT_BEGIN,
                ...junit.split('\n'),
                JUNIT_END,
                'bye',
              );
            }, 1000);
          }
        },
      }),
    );
    expect(result.reason).toBe('the suite passed');
    expect(result).toMatchObject({ outcome: 'passed', exitCode: 0 });
    expect(result.profile).toEqual({ name: 'uat-pass', created: true });

    const live = events.logLines();
    expect(live).toEqual([
      'collected 3 items',
      'test_kfp.py::test_run PASSED',
      'written while running',
      'bye',
    ]);
    const whileRunning = events.events.findIndex(
      (e) => e.type === 'log' && e.text === 'written while running',
    );
    expect(whileRunning).toBeLessThan(events.stepIndex('suite', 'done'));
    expect(events.events).toContainEqual({ type: 'junit', lines: 4 });

    const logFile = readFileSync(join(files.artifacts, 'uat.log'), 'utf8');
    expect(logFile).toBe(
      [
        'collected 3 items',
        'test_kfp.py::test_run PASSED',
        'written while running',
        JUNIT_BEGIN,
        ...junit.split('\n'),
        JUNIT_END,
        'bye',
        '',
      ].join('\n'),
    );
    expect(readFileSync(join(files.artifacts, 'junit.xml'), 'utf8')).toBe(`${junit}\n`);
    expect(result.junit).toMatchObject({ tests: 3, failures: 1 });
    const summary = JSON.parse(
      readFileSync(join(files.artifacts, 'summary.json'), 'utf8'),
    ) as typeof result;
    expect(summary.outcome).toBe('passed');
    expect(summary.job?.name).toBe(result.job?.name);

    expect(result.cleanup.leftovers).toEqual([]);
    expect(result.cleanup.deleted).toEqual([
      `Job uat-pass/${result.job?.name ?? ''}`,
      `ConfigMap uat-pass/kfx-uat-${result.runId}-env`,
      'Namespace uat-pass',
      'Profile uat-pass',
    ]);
    expect(await gone(resources.profiles, 'uat-pass')).toBe(true);
    expect(await gone(resources.namespaces, 'uat-pass')).toBe(true);
  });
});
