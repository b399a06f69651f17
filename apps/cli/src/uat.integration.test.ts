// `kfx uat run` as CI runs it: the built binary in a child process, against a real control plane
// with kwok, behind a proxy that does not exist.
// It owns its control plane: it applies what `kfx uat rbac` prints (ClusterRoles, a
// ValidatingAdmissionPolicy and their bindings, of fixed names), which hold cluster-wide.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { V1Job, V1Secret } from '@kubernetes/client-node';
import { KubeClient, resources } from '@kfx/kube-runtime/client';
import {
  appendLog,
  kubeconfigYaml,
  kubectl,
  KWOK_ANNOTATIONS,
  serveLogsFromFile,
  startControlPlane,
  waitFor,
  type ControlPlane,
} from '@kfx/testenv';
import { JUNIT_BEGIN, JUNIT_END } from '@kfx/uat-runner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'kfx-cli-uat-'));
const deadProxy = 'http://127.0.0.1:9';

let env: ControlPlane | undefined;
let client: KubeClient;

beforeAll(async () => {
  env = await startControlPlane({ components: ['controller-manager', 'scheduler', 'kwok'] });
  client = KubeClient.fromKubeConfig(env.kubeConfig);
});

const secretEnv = join(dir, 'secret.env');
writeFileSync(secretEnv, 'HTTPS_PROXY=http://ci:s3cret@proxy.corp.example:3128\n');

afterAll(async () => {
  client.close();
  await env?.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `kfx` as CI would (CI=true, a dead proxy in the environment). */
function kfx(
  args: string[],
  options: {
    onStdout?: (text: string, child: ReturnType<typeof spawn>) => void;
    onStderr?: (text: string, child: ReturnType<typeof spawn>) => void;
  } = {},
) {
  const child = spawn(process.execPath, [main, ...args], {
    env: {
      ...process.env,
      KUBECONFIG: env?.kubeconfigPath ?? '',
      CI: 'true',
      HTTPS_PROXY: deadProxy,
      HTTP_PROXY: deadProxy,
      https_proxy: deadProxy,
      http_proxy: deadProxy,
      NO_PROXY: 'corp.example',
      NODE_USE_ENV_PROXY: '1',
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    options.onStdout?.(stdout, child);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    options.onStderr?.(stderr, child);
  });
  return new Promise<Exit>((resolve) =>
    child.on('close', (code) => {
      resolve({ code, stdout, stderr });
    }),
  );
}

async function suiteLog(namespace: string, lines: string[]): Promise<string> {
  const file = join(dir, `${namespace}.log`);
  writeFileSync(file, '');
  appendLog(file, ...lines);
  if (env) await serveLogsFromFile(env.kubeconfigPath, { namespace, file });
  return file;
}

const exists = (promise: Promise<unknown>) =>
  promise.then(
    () => true,
    () => false,
  );

async function nothingLeft(namespace: string): Promise<void> {
  await waitFor(
    async () => {
      const left = [
        (await exists(client.get(resources.profiles, namespace))) && 'Profile',
        (await exists(client.get(resources.namespaces, namespace))) && 'Namespace',
      ].filter(Boolean);
      return left.length === 0
        ? { done: true, value: 0 }
        : { done: false, saw: `still there: ${left.join(', ')}` };
    },
    { description: `nothing left of the run in ${namespace}`, timeoutMs: 60_000 },
  );
}

const HOLD = 'test.kfx.dev/hold';

interface HeldJob {
  name: string;
  release(): Promise<void>;
}

/**
 * Holds the run's Job in deletion with a finalizer of the test's own, so that its clean-up is
 * certainly still going on when the test sends a signal; `release` lets it go.
 */
async function holdJob(namespace: string): Promise<HeldJob> {
  const job = await waitFor(
    async () => {
      const jobs = await client.list<V1Job>(resources.jobs, { namespace });
      const first = jobs.items[0];
      return first ? { done: true, value: first } : { done: false, saw: 'no Job yet' };
    },
    { description: `the Job in ${namespace}`, timeoutMs: 60_000 },
  );
  const name = job.metadata?.name ?? '';
  await client.patch(
    resources.jobs,
    name,
    { metadata: { finalizers: [...(job.metadata?.finalizers ?? []), HOLD] } },
    { namespace },
  );
  return {
    name,
    release: () =>
      waitFor(
        async () => {
          const live = await client.get<V1Job>(resources.jobs, name, { namespace });
          await client.patch(
            resources.jobs,
            name,
            {
              metadata: {
                finalizers: (live.metadata?.finalizers ?? []).filter((f) => f !== HOLD),
                resourceVersion: live.metadata?.resourceVersion,
              },
            },
            { namespace },
          );
          return { done: true, value: undefined };
        },
        { description: `Job ${name} to be released`, timeoutMs: 30_000 },
      ),
  };
}

const jsonEvents = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('kfx uat run', () => {
  it('passes behind a dead proxy: its own API calls go direct, the suite gets the proxy', async () => {
    await suiteLog('cli-pass', [
      'collected 1 item',
      JUNIT_BEGIN,
      '<testsuite tests="1" failures="0"/>',
      JUNIT_END,
    ]);
    const envFile = join(dir, 'params.env');
    writeFileSync(envFile, '# for the notebooks\nKFP_HOST="http://ml-pipeline.kubeflow:8888"\n');
    const artifacts = join(dir, 'cli-pass-artifacts');
    const { code, stdout, stderr } = await kfx([
      'uat',
      'run',
      '--profile',
      'cli-pass',
      '--image',
      'uats:1',
      '--command',
      'pytest -x',
      '--env',
      envFile,
      '--proxy-from-env',
      '--controller-wait',
      '1s',
      '--artifacts',
      artifacts,
      '--keep',
      '--output',
      'json',
    ]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const events = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; text?: string; outcome?: string });
    expect(events.filter((e) => e.type === 'log').map((e) => e.text)).toEqual(['collected 1 item']);
    expect(events.at(-1)).toMatchObject({ type: 'result', outcome: 'passed', exitCode: 0 });
    expect(readFileSync(join(artifacts, 'junit.xml'), 'utf8')).toBe(
      '<testsuite tests="1" failures="0"/>\n',
    );
    expect(readFileSync(join(artifacts, 'uat.log'), 'utf8')).toContain('collected 1 item\n');

    const result = events.at(-1) as unknown as { runId: string };
    const secret = await client.get<V1Secret>(resources.secrets, `kfx-uat-${result.runId}-env`, {
      namespace: 'cli-pass',
    });
    const data = Object.fromEntries(
      Object.entries(secret.data ?? {}).map(([key, value]) => [
        key,
        Buffer.from(value, 'base64').toString(),
      ]),
    );
    expect(data).toMatchObject({
      HTTPS_PROXY: deadProxy,
      https_proxy: deadProxy,
      HTTP_PROXY: deadProxy,
      KFP_HOST: 'http://ml-pipeline.kubeflow:8888',
    });
    expect(data.NO_PROXY).toMatch(/^corp\.example,localhost,127\.0\.0\.1,\.svc,/);
    await client.delete(resources.profiles, 'cli-pass', { propagationPolicy: 'Foreground' });
    await client.delete(resources.namespaces, 'cli-pass');
  });

  it('fails on a malformed env file with exit 2 before creating anything', async () => {
    const envFile = join(dir, 'broken.env');
    writeFileSync(envFile, 'HTTPS_PROXY=http://proxy:3128\nNO_PROXY=".svc\n');
    const { code, stdout, stderr } = await kfx([
      'uat',
      'run',
      '--profile',
      'cli-badenv',
      '--image',
      'uats:1',
      '--env',
      envFile,
    ]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(`kfx: ${envFile}:2: unterminated " quote\n`);
    expect(await exists(client.get(resources.profiles, 'cli-badenv'))).toBe(false);
    expect(await exists(client.get(resources.namespaces, 'cli-badenv'))).toBe(false);
  });

  it('exits 1 when the suite fails, with plain timestamped lines in CI, and cleans up', async () => {
    await suiteLog('cli-fail', ['test_kfp.py::test_pipeline FAILED']);
    const { code, stdout } = await kfx([
      'uat',
      'run',
      '--profile',
      'cli-fail',
      '--image',
      'uats:1',
      '--controller-wait',
      '1s',
      '--pod-annotation',
      `${KWOK_ANNOTATIONS.exitCode}=5`,
    ]);
    expect(code).toBe(1);
    const lines = stdout.trim().split('\n');
    for (const line of lines) expect(line).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /);
    expect(stdout).toContain('  │ test_kfp.py::test_pipeline FAILED\n');
    expect(lines.at(-1)).toMatch(
      /✗ FAILED: the suite failed: container suite exited with code 5 \(exit 1, /,
    );
    await nothingLeft('cli-fail');
  });

  it('exits 2 when the pod cannot start, saying why', async () => {
    const { code, stdout } = await kfx([
      'uat',
      'run',
      '--profile',
      'cli-nostart',
      '--image',
      'uats:does-not-exist',
      '--controller-wait',
      '1s',
      '--pod-annotation',
      `${KWOK_ANNOTATIONS.cannotStart}=ErrImagePull`,
      '--start-timeout',
      '3s',
    ]);
    expect(code).toBe(2);
    expect(stdout.trim().split('\n').at(-1)).toMatch(
      /✗ ERROR: the suite's pod did not start within 3s \(--start-timeout\): pod \S+ Pending, container suite waiting: ErrImagePull/,
    );
    await nothingLeft('cli-nostart');
  });

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    'on %s during the run, deletes everything it made and exits %d',
    async (signal, exitCode) => {
      const namespace = `cli-${signal.toLowerCase()}`;
      await suiteLog(namespace, ['a long suite starts']);
      let sent = false;
      const { code, stdout, stderr } = await kfx(
        [
          'uat',
          'run',
          '--profile',
          namespace,
          '--image',
          'uats:1',
          '--controller-wait',
          '1s',
          '--env',
          join(dir, 'params.env'),
          '--pod-annotation',
          `${KWOK_ANNOTATIONS.runFor}=120s`,
        ],
        {
          onStdout: (text, child) => {
            if (!sent && text.includes('│ a long suite starts')) {
              sent = true;
              child.kill(signal);
            }
          },
        },
      );
      expect(code).toBe(exitCode);
      expect(stderr).toContain(`kfx: ${signal}: stopping and cleaning up`);
      expect(stdout).toMatch(/✓ Deleted Job \S+, Secret \S+, Namespace \S+, Profile \S+/);
      expect(stdout.trim().split('\n').at(-1)).toMatch(
        new RegExp(`✗ INTERRUPTED: interrupted: ${signal} \\(exit ${exitCode}, `),
      );
      await nothingLeft(namespace);
    },
  );
  it('exits 130 when SIGINT arrives during clean-up, once clean-up is done', async () => {
    const namespace = 'cli-late-sigint';
    await suiteLog(namespace, ['a short suite']);
    let held: Promise<HeldJob> | undefined;
    let sent = false;
    let released: Promise<void> | undefined;
    const { code, stdout, stderr } = await kfx(
      [
        'uat',
        'run',
        '--profile',
        namespace,
        '--image',
        'uats:1',
        '--controller-wait',
        '1s',
        '--pod-annotation',
        `${KWOK_ANNOTATIONS.runFor}=4s`,
        '--output',
        'json',
      ],
      {
        onStdout: (text, child) => {
          if (!held && text.includes('"step":"job","status":"done"')) held = holdJob(namespace);
          if (!sent && text.includes('"step":"cleanup","status":"start"')) {
            sent = true;
            child.kill('SIGINT');
          }
        },
        onStderr: (text) => {
          if (!released && text.includes('kfx: SIGINT')) released = held?.then((h) => h.release());
        },
      },
    );
    await released;
    expect(stderr).toContain('kfx: SIGINT: stopping and cleaning up');
    expect(code).toBe(130);
    const result = jsonEvents(stdout).at(-1);
    expect(result).toMatchObject({ type: 'result', outcome: 'interrupted', exitCode: 130 });
    expect(result?.reason).toBe(
      'interrupted during clean-up: SIGINT (before that: the suite passed)',
    );
    expect(result?.cleanup).toMatchObject({ leftovers: [] });
    await nothingLeft(namespace);
  });

  /**
   * Runs a short suite and sends `signal` as clean-up starts, then again once kfx says it is
   * stopping; the Job is held (a finalizer) so that clean-up cannot end in between. `onStderr`
   * sees what kfx writes after that.
   */
  async function signalTwiceDuringCleanup(
    namespace: string,
    signal: 'SIGTERM' | 'SIGINT',
    extraArgs: readonly string[],
    onStderr: (text: string, held: Promise<HeldJob> | undefined) => void = () => undefined,
  ) {
    await suiteLog(namespace, ['a short suite']);
    let held: Promise<HeldJob> | undefined;
    let signals = 0;
    const run = await kfx(
      [
        'uat',
        'run',
        '--profile',
        namespace,
        '--image',
        'uats:1',
        '--controller-wait',
        '1s',
        ...extraArgs,
        '--pod-annotation',
        `${KWOK_ANNOTATIONS.runFor}=4s`,
        '--output',
        'json',
      ],
      {
        onStdout: (text, child) => {
          if (!held && text.includes('"step":"job","status":"done"')) held = holdJob(namespace);
          if (signals === 0 && text.includes('"step":"cleanup","status":"start"')) {
            signals = 1;
            child.kill(signal);
          }
        },
        onStderr: (text, child) => {
          if (signals === 1 && text.includes(`kfx: ${signal}: stopping`)) {
            signals = 2;
            child.kill(signal);
          }
          onStderr(text, held);
        },
      },
    );
    return { ...run, held };
  }

  it('on a repeated SIGTERM during clean-up (Argo sends one on each pass), still cleans up: 143', async () => {
    const namespace = 'cli-repeated-sigterm';
    let released: Promise<void> | undefined;
    const { code, stderr } = await signalTwiceDuringCleanup(
      namespace,
      'SIGTERM',
      [],
      (text, held) => {
        if (!released && text.includes('kfx: SIGTERM again: still cleaning up')) {
          released = held?.then((h) => h.release());
        }
      },
    );
    await released;
    expect(stderr).toContain('kfx: SIGTERM again: still cleaning up');
    expect(code).toBe(143);
    await nothingLeft(namespace);
  });

  it('on a second SIGINT during clean-up, exits 130 at once, naming what it leaves and how to remove it', async () => {
    const namespace = 'cli-second-sigint';
    const { code, stderr, held } = await signalTwiceDuringCleanup(namespace, 'SIGINT', [
      '--env',
      secretEnv,
    ]);
    expect(code).toBe(130);
    expect(stderr).toContain('kfx: SIGINT again: exiting without finishing clean-up');
    const job = (await held)?.name ?? '';
    const runId = /^kfx-uat-(\w+)$/.exec(job)?.[1] ?? '';
    expect(stderr).toMatch(
      new RegExp(
        `left behind: Job ${namespace}/${job}, .*Namespace ${namespace}, Profile ${namespace}\n`,
      ),
    );
    expect(stderr).toContain(
      `to remove it: kfx uat clean --profile ${namespace} --run-id ${runId}\n`,
    );
    await (await held)?.release();
    const clean = await kfx(['uat', 'clean', '--profile', namespace, '--run-id', runId]);
    expect(clean.stderr).toBe('');
    expect(clean.code).toBe(0);
    await nothingLeft(namespace);
  });

  it('after SIGKILL, leaves what `kfx uat clean --run-id` removes, and spares it without --run-id', async () => {
    const namespace = 'cli-sigkill';
    await suiteLog(namespace, ['a long suite starts']);
    let job = '';
    const killed = await kfx(
      [
        'uat',
        'run',
        '--profile',
        namespace,
        '--image',
        'uats:1',
        '--controller-wait',
        '1s',
        '--env',
        secretEnv,
        '--pod-annotation',
        `${KWOK_ANNOTATIONS.runFor}=120s`,
      ],
      {
        onStdout: (text, child) => {
          job ||= /Job cli-sigkill\/(kfx-uat-\w+) created/.exec(text)?.[1] ?? '';
          if (text.includes('│ a long suite starts')) child.kill('SIGKILL');
        },
      },
    );
    expect(killed.code).toBeNull();
    const runId = job.replace('kfx-uat-', '');
    // The Job goes by itself once it ends; the variables sit in a Secret, not a ConfigMap.
    const left = await client.get<V1Job>(resources.jobs, job, { namespace });
    expect(left.spec?.ttlSecondsAfterFinished).toBeGreaterThan(0);
    expect(left.spec?.template.spec?.containers[0]?.envFrom).toEqual([
      { secretRef: { name: `${job}-env`, optional: true } },
    ]);
    expect(await exists(client.get(resources.secrets, `${job}-env`, { namespace }))).toBe(true);
    const configMaps = await client.list(resources.configMaps, {
      namespace,
      labelSelector: `uat.kfx.dev/run-id=${runId}`,
    });
    expect(configMaps.items).toEqual([]);

    // Without --run-id, a run within its deadline may still be alive somewhere: spared.
    const spared = await kfx(['uat', 'clean', '--profile', namespace]);
    expect(spared.code).toBe(0);
    expect(spared.stdout).toMatch(
      new RegExp(`Spared run ${runId}: it may still be running \\(until `),
    );
    expect(await exists(client.get(resources.jobs, job, { namespace }))).toBe(true);

    const cleaned = await kfx(['uat', 'clean', '--profile', namespace, '--run-id', runId]);
    expect(cleaned.code).toBe(0);
    expect(cleaned.stdout).toContain(`Deleted Job ${namespace}/${job}`);
    await nothingLeft(namespace);
  });
  it('runs and cleans up as a service account that holds only what `kfx uat rbac` prints', async () => {
    const profile = 'cli-least';
    const cluster = env;
    if (!cluster) throw new Error('the control plane did not start');
    await client.create(resources.namespaces, { metadata: { name: 'ci' } });
    await client.create(resources.serviceAccounts, {
      metadata: { name: 'uat-runner', namespace: 'ci' },
    });
    const rbac = await kfx([
      'uat',
      'rbac',
      '--profile',
      profile,
      '--service-account',
      'ci:uat-runner',
    ]);
    expect(rbac.code).toBe(0);
    await kubectl(cluster.kubeconfigPath, ['apply', '-f', '-'], rbac.stdout);
    const answer = await client.request<{ status?: { token?: string } }>(
      'POST',
      '/api/v1/namespaces/ci/serviceaccounts/uat-runner/token',
      { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} } },
    );
    const kubeconfig = join(dir, 'uat-runner.kubeconfig');
    writeFileSync(
      kubeconfig,
      kubeconfigYaml({
        server: cluster.server,
        caCert: cluster.caCert,
        user: 'uat-runner',
        token: answer.status?.token ?? '',
      }),
    );
    // The admission policy takes effect a moment after it is stored.
    await waitFor(
      () =>
        kubectl(kubeconfig, ['create', 'namespace', 'not-the-uat-one', '--dry-run=server']).then(
          () => ({ done: false as const, saw: 'a namespace of another name is still allowed' }),
          () => ({ done: true as const, value: 0 }),
        ),
      { description: 'the admission policy to be enforced', timeoutMs: 60_000 },
    );
    await suiteLog(profile, ['as the uat-runner service account']);
    const run = await kfx([
      '--kubeconfig',
      kubeconfig,
      'uat',
      'run',
      '--profile',
      profile,
      '--image',
      'uats:1',
      '--controller-wait',
      '1s',
      '--env',
      secretEnv,
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('│ as the uat-runner service account');
    await nothingLeft(profile);
    const clean = await kfx(['--kubeconfig', kubeconfig, 'uat', 'clean', '--profile', profile]);
    expect(clean).toMatchObject({
      code: 0,
      stdout: `Nothing of a kfx uat run in Profile ${profile}.\n`,
      stderr: '',
    });
  });
});
