// `runUat` end to end on a real control plane with kwok. It owns its control plane: it restarts
// the API server, and registers a webhook on every Profile CREATE.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Job, V1Secret } from '@kubernetes/client-node';
import { KubeClient, resources, type KubeObject, type ResourceRef } from '@kfx/kube-runtime/client';
import { pino } from 'pino';
import {
  appendLog,
  KWOK_ANNOTATIONS,
  profileNamespace,
  serveLogsFromFile,
  serveWebhook,
  startControlPlane,
  waitFor,
  type ControlPlane,
  type WebhookTls,
} from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { RunEvent } from './events.js';
import { readJobManifest } from './job/job-spec.js';
import { cleanLeftovers } from './cleanup/leftovers.js';
import { JUNIT_BEGIN, JUNIT_END } from './log/junit-wrapper.js';
import { runUat } from './run.js';
import type { UatResult, UatRunOptions } from './run-options.js';
import type { Profile } from './profile/profile.js';

let env: ControlPlane | undefined;
let client: KubeClient;
// The API server restart below makes watches fail on purpose; keep those warnings out.
const quiet = pino({ level: 'error' });
const dir = mkdtempSync(join(tmpdir(), 'kfx-uat-it-'));

beforeAll(async () => {
  env = await startControlPlane({ components: ['controller-manager', 'scheduler', 'kwok'] });
  client = KubeClient.fromKubeConfig(env.kubeConfig, { logger: quiet });
});

afterAll(async () => {
  client.close();
  await env?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A suite "log" kwok serves for every pod of `namespace`, and a place for artifacts. */
async function suiteFiles(namespace: string, lines: string[]) {
  const log = join(dir, `${namespace}.log`);
  writeFileSync(log, '');
  appendLog(log, ...lines);
  if (env) await serveLogsFromFile(env.kubeconfigPath, { namespace, file: log });
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

function controlPlane(): ControlPlane {
  if (!env) throw new Error('the control plane did not start');
  return env;
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
      `Secret uat-pass/kfx-uat-${result.runId}-env`,
      'Namespace uat-pass',
      'Profile uat-pass',
    ]);
    expect(await gone(resources.profiles, 'uat-pass')).toBe(true);
    expect(await gone(resources.namespaces, 'uat-pass')).toBe(true);
  });

  it("reports a failing suite with exit code 1 and the suite's own code, from a Job manifest", async () => {
    const files = await suiteFiles('uat-fail', ['test_katib.py::test_experiment FAILED']);
    const manifest = readJobManifest(
      `apiVersion: batch/v1
kind: Job
metadata: { generateName: katib- }
spec:
  template:
    metadata:
      annotations: { "${KWOK_ANNOTATIONS.exitCode}": "3", "${KWOK_ANNOTATIONS.runFor}": "1s" }
    spec:
      containers:
        - { name: tests, image: "registry.corp/uats:1", command: [pytest] }
`,
      'job.yaml',
    );
    const result = await runUat(
      options('uat-fail', {
        manifest,
        image: undefined,
        command: undefined,
        artifactsDir: files.artifacts,
      }),
    );
    expect(result).toMatchObject({ outcome: 'failed', exitCode: 1 });
    expect(result.reason).toBe('the suite failed: container tests exited with code 3');
    expect(result.job).toMatchObject({ container: 'tests', exitCode: 3 });
    expect(result.job?.name).toBe(`katib-${result.runId}`);
    expect(readFileSync(join(files.artifacts, 'uat.log'), 'utf8')).toBe(
      'test_katib.py::test_experiment FAILED\n',
    );
    expect(existsSync(join(files.artifacts, 'junit.xml'))).toBe(false);
    expect(result.cleanup.leftovers).toEqual([]);
  });

  it('gives up on an image whose pulls keep failing, without waiting out the start timeout', async () => {
    const result = await runUat(
      options('uat-nopull', {
        podAnnotations: { [KWOK_ANNOTATIONS.cannotStart]: 'ErrImagePull' },
        pullFailureMs: 3000,
        reporter: recorder().reporter,
      }),
    );
    expect(result).toMatchObject({ outcome: 'error', exitCode: 2 });
    expect(result.reason).toMatch(
      /^the suite's pod cannot start: image "[^"]+" cannot be pulled \(ErrImagePull[^)]*\), failing for 3s$/,
    );
    expect(result.reason).not.toContain('\n');
    expect(result.cleanup.leftovers).toEqual([]);
  });

  it('gives up on a pod that cannot start with exit code 2, saying why', async () => {
    const events = recorder();
    const result = await runUat(
      options('uat-nostart', {
        podAnnotations: { [KWOK_ANNOTATIONS.cannotStart]: 'ErrImagePull' },
        startTimeoutMs: 4000,
        reporter: events.reporter,
      }),
    );
    expect(result).toMatchObject({ outcome: 'error', exitCode: 2 });
    expect(result.reason).toMatch(
      /^the suite's pod did not start within 4s \(--start-timeout\): pod kfx-uat-\w+-\w+ Pending, container suite waiting: ErrImagePull/,
    );
    expect(events.events).toContainEqual(
      expect.objectContaining({
        type: 'progress',
        step: 'start',
        message: expect.stringContaining('ErrImagePull') as string,
      }),
    );
    expect(result.steps.find((s) => s.step === 'results')).toMatchObject({ status: 'skipped' });
    expect(result.cleanup.leftovers).toEqual([]);
    expect(await gone(resources.profiles, 'uat-nostart')).toBe(true);
  });

  it('cleans up everything when interrupted while the suite runs', async () => {
    await suiteFiles('uat-abort', ['running a long suite']);
    const abort = new AbortController();
    let job = '';
    const result = await runUat(
      options('uat-abort', {
        env: { A: '1' },
        podAnnotations: { [KWOK_ANNOTATIONS.runFor]: '120s' },
        signal: abort.signal,
        reporter: (event) => {
          if (event.type === 'step' && event.step === 'job' && event.status === 'done')
            job = event.message;
          if (event.type === 'log') abort.abort(new Error('SIGINT'));
        },
      }),
    );
    expect(result).toMatchObject({
      outcome: 'interrupted',
      exitCode: 130,
      reason: 'interrupted: SIGINT',
    });
    expect(job).toMatch(/created/);
    expect(result.cleanup.leftovers).toEqual([]);
    const name = result.job?.name ?? '';
    expect(await gone(resources.jobs, name, 'uat-abort')).toBe(true);
    expect(await gone(resources.secrets, `kfx-uat-${result.runId}-env`, 'uat-abort')).toBe(true);
    expect(await gone(resources.namespaces, 'uat-abort')).toBe(true);
    expect(await gone(resources.profiles, 'uat-abort')).toBe(true);
  });

  it('ends as interrupted when Ctrl-C comes during clean-up, once clean-up is done', async () => {
    await suiteFiles('uat-late-abort', ['a short suite']);
    const abort = new AbortController();
    const outstanding: string[][] = [];
    const result = await runUat(
      options('uat-late-abort', {
        env: { A: '1' },
        signal: abort.signal,
        onOutstanding: (objects) => outstanding.push(objects),
        reporter: (event) => {
          if (event.type === 'step' && event.step === 'cleanup' && event.status === 'start') {
            abort.abort(new Error('SIGINT'));
          }
        },
      }),
    );
    expect(result).toMatchObject({ outcome: 'interrupted', exitCode: 130 });
    expect(result.reason).toBe(
      'interrupted during clean-up: SIGINT (before that: the suite passed)',
    );
    expect(result.cleanup.leftovers).toEqual([]);
    // What a caller forced to exit would have left, as it changed: all of it, then less, then none.
    const job = `Job uat-late-abort/${result.job?.name ?? ''}`;
    expect(outstanding).toContainEqual([
      job,
      `Secret uat-late-abort/kfx-uat-${result.runId}-env`,
      'Namespace uat-late-abort',
      'Profile uat-late-abort',
    ]);
    expect(outstanding).toContainEqual(['Namespace uat-late-abort', 'Profile uat-late-abort']);
    expect(outstanding.at(-1)).toEqual([]);
  });

  it('leaves its Profile to a run that still uses it; a later clean removes it', async () => {
    await suiteFiles('uat-shared', ['shared']);
    const first = new AbortController();
    const second = new AbortController();
    let secondRun: ReturnType<typeof runUat> | undefined;
    const firstResult = await runUat(
      options('uat-shared', {
        podAnnotations: { [KWOK_ANNOTATIONS.runFor]: '120s' },
        signal: first.signal,
        reporter: (event) => {
          // The first run's Profile exists: a second CI job starts in it, and once its suite
          // runs, the first one ends.
          if (event.type === 'step' && event.step === 'job' && event.status === 'done') {
            secondRun ??= runUat(
              options('uat-shared', {
                runId: 'second',
                podAnnotations: { [KWOK_ANNOTATIONS.runFor]: '120s' },
                signal: second.signal,
                reporter: (e) => {
                  if (e.type === 'step' && e.step === 'suite' && e.status === 'start')
                    first.abort(new Error('SIGINT'));
                },
              }),
            );
          }
        },
      }),
    );
    expect(firstResult.profile).toEqual({ name: 'uat-shared', created: true });
    expect(firstResult.cleanup.kept).toEqual([
      'Namespace uat-shared: kept, run second still uses it; a later run or `kfx uat clean` removes it once none does',
      'Profile uat-shared: kept, run second still uses it; a later run or `kfx uat clean` removes it once none does',
    ]);
    expect(firstResult.cleanup.deleted).toEqual([`Job uat-shared/${firstResult.job?.name ?? ''}`]);
    expect(await gone(resources.profiles, 'uat-shared')).toBe(false);
    second.abort(new Error('SIGINT'));
    const secondResult = await secondRun;
    expect(secondResult?.profile).toEqual({ name: 'uat-shared', created: false });
    expect(secondResult?.cleanup.leftovers).toEqual([]);
    expect(await gone(resources.profiles, 'uat-shared')).toBe(false);

    // After the first run's deadline, nothing uses the Profile any more.
    const later = await cleanLeftovers({
      client,
      profile: 'uat-shared',
      now: new Date(Date.now() + 24 * 3_600_000),
      timeoutMs: 60_000,
    });
    expect(later.deleted).toEqual([
      expect.stringMatching(/^Namespace uat-shared \(run \w+: its deadline passed /),
      expect.stringMatching(/^Profile uat-shared \(run \w+: its deadline passed /),
    ]);
    expect(await gone(resources.profiles, 'uat-shared')).toBe(true);
    expect(await gone(resources.namespaces, 'uat-shared')).toBe(true);
  });

  it('keeps following the log across an API server restart, losing and repeating nothing', async () => {
    const files = await suiteFiles('uat-restart', ['line 1']);
    const cluster = controlPlane();
    let restarted: Promise<void> | undefined;
    const events = recorder();
    const result = await runUat(
      options('uat-restart', {
        artifactsDir: files.artifacts,
        podAnnotations: { [KWOK_ANNOTATIONS.runFor]: '25s' },
        reporter: (event) => {
          events.reporter(event);
          if (event.type === 'log' && event.text === 'line 1') {
            restarted = (async () => {
              appendLog(files.log, 'line 2');
              await waitFor(
                () =>
                  Promise.resolve(
                    events.logLines().includes('line 2')
                      ? { done: true as const, value: 0 }
                      : { done: false as const, saw: 'line 2 not yet' },
                  ),
                { description: 'line 2 to stream', timeoutMs: 10_000 },
              );
              await cluster.restartApiServer();
              appendLog(files.log, 'line 3', 'line 4');
            })();
          }
        },
      }),
    );
    await restarted;
    expect(result.reason).toBe('the suite passed');
    expect(events.logLines()).toEqual(['line 1', 'line 2', 'line 3', 'line 4']);
    expect(result.log.streams).toBeGreaterThan(1);
    expect(readFileSync(join(files.artifacts, 'uat.log'), 'utf8')).toBe(
      'line 1\nline 2\nline 3\nline 4\n',
    );
  });

  it('runs in an existing namespace without a Profile and keeps what it made with keep', async () => {
    await client.create(resources.namespaces, { metadata: { name: 'uat-existing' } });
    await client.create(resources.serviceAccounts, {
      metadata: { name: 'default-editor', namespace: 'uat-existing' },
    });
    const result = await runUat(
      options('unused', {
        profile: undefined,
        namespace: 'uat-existing',
        keep: true,
        env: { HTTPS_PROXY: 'http://proxy:3128' },
      }),
    );
    expect(result.outcome).toBe('passed');
    expect(result.profile).toBeUndefined();
    const name = result.job?.name ?? '';
    const secret = `kfx-uat-${result.runId}-env`;
    expect(result.cleanup.kept).toEqual([
      `Job uat-existing/${name}`,
      `Secret uat-existing/${secret}`,
    ]);
    const kept = await client.get<V1Secret>(resources.secrets, secret, {
      namespace: 'uat-existing',
    });
    expect(Buffer.from(kept.data?.HTTPS_PROXY ?? '', 'base64').toString()).toBe(
      'http://proxy:3128',
    );
    const job = await client.get<V1Job>(resources.jobs, name, { namespace: 'uat-existing' });
    expect(job.spec?.template.spec?.containers[0]?.envFrom).toEqual([
      { secretRef: { name: secret, optional: true } },
    ]);
    expect(job.spec?.template.spec?.serviceAccountName).toBe('default-editor');
    // Kept on purpose: no deadline a later run would remove it by, and no time to live.
    expect(job.metadata?.annotations?.['uat.kfx.dev/expires']).toBeUndefined();
    expect(job.spec?.ttlSecondsAfterFinished).toBeUndefined();
  });

  it('hands git credentials over in a Secret of the run: none in the Job or its Pod', async () => {
    const token = 'kfx-token-5b1e77';
    await suiteFiles('uat-git', ['from git']);
    const seen: Promise<string[]>[] = [];
    const result = await runUat(
      options('uat-git', {
        git: { url: `https://ci-bot:${token}@git.corp/uats.git`, ref: 'v1' },
        env: { HTTPS_PROXY: 'http://proxy:3128' },
        reporter: (event) => {
          // While the suite runs: the Job and its Pod as the cluster stores them.
          if (event.type === 'step' && event.step === 'suite' && event.status === 'start') {
            seen.push(
              Promise.all([
                client.list(resources.jobs, { namespace: 'uat-git' }),
                client.list(resources.pods, { namespace: 'uat-git' }),
              ]).then((lists) => lists.map((list) => JSON.stringify(list.items))),
            );
          }
        },
      }),
    );
    expect(result.reason).toBe('the suite passed');
    const [jobs = '', pods = ''] = (await seen[0]) ?? [];
    expect(jobs).toContain('KFX_GIT_URL');
    expect(pods).toContain('KFX_GIT_URL');
    expect(jobs).not.toContain(token);
    expect(pods).not.toContain(token);
    expect(JSON.stringify(result)).not.toContain(token);
    expect(result.cleanup.deleted).toContain(`Secret uat-git/kfx-uat-${result.runId}-git`);
    expect(result.cleanup.leftovers).toEqual([]);
  });

  it('waits for a profile controller, and says what it last saw when none comes', async () => {
    const result = await runUat(
      options('uat-nocontroller', { createNamespace: 'never', profileTimeoutMs: 3000 }),
    );
    expect(result).toMatchObject({ outcome: 'error', exitCode: 2 });
    expect(result.reason).toBe(
      'namespace uat-nocontroller was not ready within 3s (--profile-timeout); last saw: namespace uat-nocontroller does not exist (waiting for the profile controller; --create-namespace never)',
    );
    expect(result.cleanup.deleted).toEqual(['Profile uat-nocontroller']);

    // A stand-in profile controller: namespace (owned by the Profile) and service account.
    const controller = (async () => {
      const profile = await waitFor(
        () =>
          client.get(resources.profiles, 'uat-controller').then(
            (p) => ({ done: true as const, value: p }),
            () => ({ done: false as const, saw: 'no Profile' }),
          ),
        { description: 'the Profile', timeoutMs: 30_000 },
      );
      await client.create(resources.namespaces, {
        metadata: {
          name: 'uat-controller',
          ownerReferences: [
            {
              apiVersion: 'kubeflow.org/v1',
              kind: 'Profile',
              name: 'uat-controller',
              uid: profile.metadata?.uid ?? '',
              blockOwnerDeletion: true,
              controller: true,
            },
          ],
        },
      });
      await client.create(resources.serviceAccounts, {
        metadata: { name: 'default-editor', namespace: 'uat-controller' },
      });
    })();
    const served = await runUat(options('uat-controller', { createNamespace: 'never' }));
    await controller;
    expect(served.outcome).toBe('passed');
    expect(served.steps.find((s) => s.step === 'namespace')?.message).toBe(
      'Namespace uat-controller Active',
    );
    expect(served.cleanup.deleted).toContain('Profile uat-controller');
    await waitFor(
      async () =>
        (await gone(resources.namespaces, 'uat-controller'))
          ? { done: true, value: 0 }
          : { done: false, saw: 'namespace still there' },
      {
        description: 'the namespace to go with its Profile',
        timeoutMs: 60_000,
      },
    );
  });
});

describe("a Profile of the run's name that the run did not make for itself", () => {
  const PROXY = 'http://ci:proxy-secret@proxy:3128';

  /**
   * A tenant's Profile (made through KFAM, which creates any body it gets), with its namespace
   * and the suite's service account as a profile controller leaves them: a run that reused it
   * would go on into a namespace whose owner sees its Secrets and pods.
   */
  async function squat(name: string, owner: string, labels: Record<string, string>) {
    const profile = await client.create<Profile>(resources.profiles, {
      apiVersion: 'kubeflow.org/v1',
      kind: 'Profile',
      metadata: { name, labels },
      spec: { owner: { kind: 'User', name: owner } },
    });
    await client.create(resources.namespaces, profileNamespace(profile));
    await client.create(resources.serviceAccounts, {
      metadata: { name: 'default-editor', namespace: name },
    });
  }

  /** The Secrets, Jobs and RoleBindings in `namespace`: what a run would have made there. */
  async function madeIn(namespace: string): Promise<string[]> {
    const names: string[] = [];
    for (const ref of [resources.secrets, resources.jobs, resources.roleBindings]) {
      const list = await client.list(ref, { namespace });
      names.push(...list.items.map((object) => `${ref.kind} ${object.metadata?.name ?? ''}`));
    }
    return names;
  }

  async function expectUntouched(name: string, owner: string, result: UatResult) {
    expect(result).toMatchObject({ outcome: 'error', exitCode: 2 });
    expect(result.steps.map((s) => s.step)).not.toContain('namespace');
    expect(result.cleanup).toEqual({ kept: [], deleted: [], leftovers: [] });
    expect(await madeIn(name)).toEqual([]);
    const profile = await client.get<Profile>(resources.profiles, name);
    expect(profile.spec?.owner).toEqual({ kind: 'User', name: owner });
    expect(profile.metadata?.deletionTimestamp).toBeUndefined();
  }

  async function remove(name: string) {
    await client.delete(resources.profiles, name).catch(() => undefined);
    await client.delete(resources.namespaces, name).catch(() => undefined);
  }

  it('refuses one of another owner with exit 2, naming it, and makes nothing there', async () => {
    // Labelled as the runner labels its own: a label anyone may copy.
    await squat('uat-squat', 'mallory@corp.example', { 'app.kubernetes.io/managed-by': 'kfx-uat' });
    onTestFinished(() => remove('uat-squat'));
    const result = await runUat(options('uat-squat', { env: { HTTPS_PROXY: PROXY } }));
    expect(result.reason).toBe(
      "Profile uat-squat is owned by User mallory@corp.example, not by the run's owner User test-kubeflow@email.com (--owner): a run there would show that owner its Secrets and pods, so it is not reused; delete that Profile, or pass another --profile",
    );
    await expectUntouched('uat-squat', 'mallory@corp.example', result);
  });

  it('refuses one of the right owner that the runner did not make', async () => {
    await squat('uat-unlabelled', 'test-kubeflow@email.com', {});
    onTestFinished(() => remove('uat-unlabelled'));
    const result = await runUat(options('uat-unlabelled', { env: { HTTPS_PROXY: PROXY } }));
    expect(result.reason).toBe(
      'Profile uat-unlabelled (owner User test-kubeflow@email.com) was not made by the UAT runner: it lacks the label app.kubernetes.io/managed-by=kfx-uat, so it is not reused; label it so if it is meant for UAT runs (kubectl label profile uat-unlabelled app.kubernetes.io/managed-by=kfx-uat), or pass another --profile',
    );
    await expectUntouched('uat-unlabelled', 'test-kubeflow@email.com', result);
  });

  it('checks a Profile that appears between its look and its create', async () => {
    // A webhook on Profile CREATE makes the tenant's Profile while the runner's create is on
    // its way, so that the runner's own ends in AlreadyExists: the race, every time.
    let squatted: Promise<unknown> | undefined;
    let probed = false;
    const webhook = await serveWebhook({
      kubeconfig: controlPlane().kubeconfigPath,
      serve: (tls) =>
        reviewServer(tls, async (name, dryRun) => {
          if (dryRun) probed = true;
          else if (name === 'uat-race' && squatted === undefined) {
            squatted = squat('uat-race', 'mallory@corp.example', {});
            await squatted;
          }
        }),
      configurations: ({ url, caCert }) => [
        {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingWebhookConfiguration',
          metadata: { name: 'uat-race' },
          webhooks: [
            {
              name: 'uat-race.kfx.dev',
              clientConfig: { url, caBundle: Buffer.from(caCert).toString('base64') },
              rules: [
                {
                  apiGroups: ['kubeflow.org'],
                  apiVersions: ['*'],
                  operations: ['CREATE'],
                  resources: ['profiles'],
                },
              ],
              sideEffects: 'None',
              admissionReviewVersions: ['v1'],
              failurePolicy: 'Fail',
            },
          ],
        },
      ],
      called: async () => {
        await client.create(
          resources.profiles,
          { apiVersion: 'kubeflow.org/v1', kind: 'Profile', metadata: { name: 'uat-probe' } },
          { dryRun: true },
        );
        return probed || 'the webhook was not called yet';
      },
    });
    onTestFinished(() => remove('uat-race'));
    try {
      const result = await runUat(options('uat-race', { env: { HTTPS_PROXY: PROXY } }));
      expect(squatted).toBeDefined();
      expect(result.reason).toMatch(
        /^Profile uat-race is owned by User mallory@corp\.example, not by the run's owner User test-kubeflow@email\.com/,
      );
      await expectUntouched('uat-race', 'mallory@corp.example', result);
    } finally {
      await webhook.stop();
    }
  });
});

/** An HTTPS admission webhook that allows every review once `onReview` has run for it. */
async function reviewServer(
  tls: WebhookTls,
  onReview: (name: string, dryRun: boolean) => Promise<void>,
): Promise<{ port: number; stop(): Promise<void> }> {
  const [cert, key] = await Promise.all([readFile(tls.certFile), readFile(tls.keyFile)]);
  const server = createServer({ cert, key }, (req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const { request } = JSON.parse(body) as {
        request: { uid: string; name?: string; dryRun?: boolean; object?: KubeObject };
      };
      const name = request.name ?? request.object?.metadata?.name ?? '';
      void onReview(name, request.dryRun === true)
        .catch(() => undefined)
        .then(() => {
          res.setHeader('content-type', 'application/json');
          res.end(
            JSON.stringify({
              apiVersion: 'admission.k8s.io/v1',
              kind: 'AdmissionReview',
              response: { uid: request.uid, allowed: true },
            }),
          );
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}
