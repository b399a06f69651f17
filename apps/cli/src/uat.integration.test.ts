// `kfx uat run` as CI runs it: the built binary in a child process, against a real control plane
// with kwok, behind a proxy that does not exist.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { KubeClient, resources } from '@kfx/kube-runtime';
import {
  appendLog,
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
  options: { onStdout?: (text: string, child: ReturnType<typeof spawn>) => void } = {},
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
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
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
    const configMap = await client.get<V1ConfigMap>(
      resources.configMaps,
      `kfx-uat-${result.runId}-env`,
      { namespace: 'cli-pass' },
    );
    expect(configMap.data).toMatchObject({
      HTTPS_PROXY: deadProxy,
      https_proxy: deadProxy,
      HTTP_PROXY: deadProxy,
      KFP_HOST: 'http://ml-pipeline.kubeflow:8888',
    });
    expect(configMap.data?.NO_PROXY).toMatch(/^corp\.example,localhost,127\.0\.0\.1,\.svc,/);
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
      expect(stdout).toMatch(/✓ Deleted Job \S+, ConfigMap \S+, Namespace \S+, Profile \S+/);
      expect(stdout.trim().split('\n').at(-1)).toMatch(
        new RegExp(`✗ INTERRUPTED: interrupted: ${signal} \\(exit ${exitCode}, `),
      );
      await nothingLeft(namespace);
    },
  );
});
