// `kfx uat run --artifacts s3://…` as CI runs it: the built binary in a child process whose
// environment holds the AWS variables, against a real control plane with kwok and a real S3
// server (versitygw). S3 is outside traffic: it follows HTTP(S)_PROXY/NO_PROXY, while the
// Kubernetes API never does.
// On the CLI's shared control plane: its runs' Profiles are named after the file's namespace.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeClient, resources } from '@kfx/kube-runtime/client';
import {
  appendLog,
  freePort,
  KWOK_ANNOTATIONS,
  serveLogsFromFile,
  useSharedControlPlane,
  startS3Server,
  type SharedControlPlane,
  type S3Server,
} from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'kfx-cli-s3-'));
const deadProxy = 'http://127.0.0.1:9';
const BUCKET = 'ci-results';

let env: SharedControlPlane | undefined;
/** The file's namespace on the CLI's shared plane: its runs' Profiles are named after it. */
let ns = '';
/** Stops kwok serving each suite's log. */
const logRemovers: (() => Promise<void>)[] = [];
let s3: S3Server | undefined;
let client: KubeClient;

beforeAll(async () => {
  [env, s3] = await Promise.all([
    useSharedControlPlane(inject('kfxControlPlane'), 'cli-s3'),
    startS3Server({ buckets: [BUCKET] }),
  ]);
  ns = env.namespace;
  client = KubeClient.fromKubeConfig(env.kubeConfig);
}, 900_000);

afterAll(async () => {
  client.close();
  for (const remove of logRemovers) await remove();
  await Promise.all([env?.release(), s3?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

const server = () => {
  if (!s3) throw new Error('the S3 server did not start');
  return s3;
};

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `kfx` as CI would: CI=true, only the variables given (no AWS_* of this machine), a dead
 * proxy for everything that NO_PROXY does not name.
 */
function kfx(
  args: string[],
  variables: Record<string, string>,
  onStdout?: (text: string, child: ReturnType<typeof spawn>) => void,
): Promise<Exit> {
  const child = spawn(process.execPath, [main, ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      KUBECONFIG: env?.kubeconfigPath ?? '',
      CI: 'true',
      HTTPS_PROXY: deadProxy,
      HTTP_PROXY: deadProxy,
      NODE_USE_ENV_PROXY: '1',
      ...variables,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    onStdout?.(stdout, child);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) =>
    child.on('close', (code) => {
      resolve({ code, stdout, stderr });
    }),
  );
}

async function suiteLog(namespace: string, lines: string[]): Promise<void> {
  const file = join(dir, `${namespace}.log`);
  writeFileSync(file, '');
  appendLog(file, ...lines);
  if (env) logRemovers.push(await serveLogsFromFile(env.kubeconfigPath, { namespace, file }));
}

const run = (profile: string, ...more: string[]) => [
  'uat',
  'run',
  '--profile',
  profile,
  '--image',
  'uats:1',
  '--controller-wait',
  '1s',
  ...more,
];

async function finished(prefix: string): Promise<Record<string, unknown>> {
  const object = await server().getObject(BUCKET, `${prefix}/finished.json`);
  if (!object) throw new Error(`no ${prefix}/finished.json`);
  return JSON.parse(object.body.toString()) as Record<string, unknown>;
}

/** A forward proxy for plain HTTP on 127.0.0.1 that records what it forwarded. */
async function recordingProxy(): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const proxy: Server = createServer((incoming, outgoing) => {
    seen.push(`${incoming.method ?? ''} ${incoming.url ?? ''}`);
    const upstream = request(
      incoming.url ?? '',
      { method: incoming.method, headers: incoming.headers, agent: false },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  proxy.on('connect', (req, socket) => {
    // The Kubernetes API is HTTPS: it would come as CONNECT. It must never come at all.
    seen.push(`CONNECT ${req.url ?? ''}`);
    socket.destroy();
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        proxy.close(() => {
          resolve();
        });
        proxy.closeAllConnections();
      }),
  };
}

describe('kfx uat run --artifacts s3://…', () => {
  it('uploads with the credentials of the environment, to S3 and a folder at once', async () => {
    await suiteLog(`${ns}-pass`, ['collected 1 item', '1 passed']);
    const local = join(dir, `${ns}-pass-results`);
    const { code, stdout, stderr } = await kfx(
      run(`${ns}-pass`, '--artifacts', local, '--artifacts', `s3://${BUCKET}/runs/pass`),
      // The endpoint from AWS_ENDPOINT_URL_S3 (path style follows); the server past NO_PROXY.
      { ...server().env, NO_PROXY: '127.0.0.1' },
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(await server().listKeys(BUCKET, 'runs/pass/')).toEqual([
      'runs/pass/artifacts/summary.json',
      'runs/pass/build-log.txt',
      'runs/pass/finished.json',
      'runs/pass/started.json',
    ]);
    expect(await finished('runs/pass')).toMatchObject({ passed: true, result: 'SUCCESS' });
    expect(readFileSync(join(local, 'uat.log'), 'utf8')).toBe('collected 1 item\n1 passed\n');
    expect(stdout).toContain(`Artifacts: ${local}`);
    expect(stdout).toContain(`Artifacts: s3://${BUCKET}/runs/pass/`);
  });

  it('sends S3 requests through HTTP_PROXY, and none of its API requests', async () => {
    const proxy = await recordingProxy();
    try {
      await suiteLog(`${ns}-proxy`, ['through the proxy']);
      const { code, stderr } = await kfx(
        run(`${ns}-proxy`, '--artifacts', `s3://${BUCKET}/runs/proxy`),
        {
          ...server().env,
          HTTP_PROXY: proxy.url,
          HTTPS_PROXY: proxy.url,
          NO_PROXY: 'corp.example',
        },
      );
      expect(stderr).toBe('');
      expect(code).toBe(0);
      const base = `${server().endpoint}/${BUCKET}/runs/proxy`;
      expect(proxy.seen).toEqual([
        `PUT ${base}/started.json?x-id=PutObject`,
        `PUT ${base}/build-log.txt?x-id=PutObject`,
        `PUT ${base}/finished.json?x-id=PutObject`,
        `PUT ${base}/artifacts/summary.json?x-id=PutObject`,
      ]);
    } finally {
      await proxy.close();
    }
  });

  it('says ABORTED in finished.json after SIGTERM, and exits 143', async () => {
    await suiteLog(`${ns}-term`, ['a long suite']);
    const { code } = await kfx(
      run(
        `${ns}-term`,
        '--pod-annotation',
        `${KWOK_ANNOTATIONS.runFor}=120s`,
        '--artifacts',
        `s3://${BUCKET}/runs/term`,
      ),
      { ...server().env, NO_PROXY: '127.0.0.1' },
      (stdout, child) => {
        if (stdout.includes('a long suite') && !child.killed) child.kill('SIGTERM');
      },
    );
    expect(code).toBe(143);
    expect(await finished('runs/term')).toMatchObject({
      passed: false,
      result: 'ABORTED',
      metadata: { outcome: 'interrupted', reason: 'interrupted: SIGTERM' },
    });
    expect((await server().getObject(BUCKET, 'runs/term/build-log.txt'))?.body.toString()).toBe(
      'a long suite\n',
    );
  });

  it('exits 2 naming the key when the endpoint does not answer, before making anything', async () => {
    const dead = await freePort();
    const { code, stderr } = await kfx(
      run(
        `${ns}-dead`,
        '--artifacts',
        `s3://${BUCKET}/runs/dead`,
        '--s3-endpoint',
        `http://127.0.0.1:${dead}`,
      ),
      { ...server().env, NO_PROXY: '127.0.0.1' },
    );
    expect(code).toBe(2);
    expect(stderr).toMatch(
      new RegExp(
        `^kfx: artifacts upload failed: s3://${BUCKET}/runs/dead/started\\.json: .*ECONNREFUSED.* \\(exit 2\\)\\n$`,
      ),
    );
    await expect(client.get(resources.profiles, `${ns}-dead`)).rejects.toThrow();
  });

  it('exits 2 naming the key and S3’s error for a key it does not know', async () => {
    const { code, stdout, stderr } = await kfx(
      run(`${ns}-badkey`, '--artifacts', `s3://${BUCKET}/runs/badkey`),
      { ...server().env, AWS_ACCESS_KEY_ID: 'NOSUCHKEY', NO_PROXY: '127.0.0.1' },
    );
    expect(code).toBe(2);
    expect(stderr).toMatch(
      // versitygw's own code for it (AWS says InvalidAccessKeyId, 403).
      /^kfx: artifacts upload failed: s3:\/\/ci-results\/runs\/badkey\/started\.json: XAdminUserNotFound: No user exists with the provided access key ID\. \(HTTP 404\) \(exit 2\)\n$/,
    );
    expect(stdout).toContain('✗ Upload failed: s3://ci-results/runs/badkey/started.json');
    expect(await server().listKeys(BUCKET, 'runs/badkey/')).toEqual([]);
  });
});
