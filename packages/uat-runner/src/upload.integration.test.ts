// `runUat` with `artifactsUrl` on a real control plane with kwok, uploading to a real S3 server
// (versitygw): Prow's layout after a passing, a failing and an interrupted run, credentials from
// the AWS variables and from a profile in the shared files, and uploads that fail — refused at
// the start (nothing is made in the cluster) or lost half-way (the exit code says so).
// It owns its control plane: no other file of the package can share one (run restarts the API
// server, rbac and policy-support change cluster-wide policy), and one file alone gains nothing.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient, resources } from '@kfx/kube-runtime/client';
import {
  appendLog,
  KWOK_ANNOTATIONS,
  serveLogsFromFile,
  startControlPlane,
  startS3Server,
  type ControlPlane,
  type S3Server,
} from '@kfx/testenv';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from './events.js';
import { JUNIT_BEGIN, JUNIT_END } from './log/junit-wrapper.js';
import { runUat } from './run.js';
import type { UatRunOptions } from './run-options.js';

let env: ControlPlane | undefined;
let s3: S3Server | undefined;
let client: KubeClient;
const dir = mkdtempSync(join(tmpdir(), 'kfx-uat-s3-'));
const BUCKET = 'ci-results';
const AWS_NAMES = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
  'AWS_PROFILE',
  'AWS_CONFIG_FILE',
  'AWS_SHARED_CREDENTIALS_FILE',
  'AWS_ENDPOINT_URL',
  'AWS_ENDPOINT_URL_S3',
];
const saved = Object.fromEntries(AWS_NAMES.map((name) => [name, process.env[name]]));

beforeAll(async () => {
  [env, s3] = await Promise.all([
    startControlPlane({ components: ['controller-manager', 'scheduler', 'kwok'] }),
    startS3Server({ buckets: [BUCKET] }),
  ]);
  client = KubeClient.fromKubeConfig(env.kubeConfig, { logger: pino({ level: 'error' }) });
}, 900_000);

afterAll(async () => {
  client.close();
  await Promise.all([env?.stop(), s3?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

afterEach(() => {
  for (const name of AWS_NAMES) {
    if (saved[name] === undefined) Reflect.deleteProperty(process.env, name);
    else process.env[name] = saved[name];
  }
});

/** The runner's AWS settings come from the environment, as in CI: these are the server's. */
function useServerEnv(server: S3Server, overrides: Record<string, string> = {}): void {
  for (const name of AWS_NAMES) Reflect.deleteProperty(process.env, name);
  Object.assign(process.env, server.env, overrides);
}

const server = () => {
  if (!s3) throw new Error('the S3 server did not start');
  return s3;
};

async function suiteLog(namespace: string, lines: string[]): Promise<string> {
  const log = join(dir, `${namespace}.log`);
  writeFileSync(log, '');
  appendLog(log, ...lines);
  if (env) await serveLogsFromFile(env.kubeconfigPath, { namespace, file: log });
  return log;
}

const options = (namespace: string, extra: Partial<UatRunOptions>): UatRunOptions => ({
  client,
  profile: namespace,
  image: 'registry.corp/uats:1',
  command: ['pytest'],
  controllerWaitMs: 1000,
  ...extra,
});

async function json(key: string): Promise<Record<string, unknown>> {
  const object = await server().getObject(BUCKET, key);
  if (!object) throw new Error(`no object ${key}`);
  return JSON.parse(object.body.toString()) as Record<string, unknown>;
}

const text = async (key: string) => (await server().getObject(BUCKET, key))?.body.toString();

const LAYOUT = [
  'artifacts/junit_uat.xml',
  'artifacts/summary.json',
  'build-log.txt',
  'finished.json',
  'started.json',
];

const junit = `<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" errors="0" failures="0" skipped="0" tests="2"></testsuite></testsuites>`;

describe('runUat uploading its artifacts to S3', () => {
  it('leaves Prow’s layout after a passing run, and the local folder as well', async () => {
    useServerEnv(server());
    const lines = ['collected 2 items', JUNIT_BEGIN, ...junit.split('\n'), JUNIT_END, '2 passed'];
    await suiteLog('s3-pass', lines);
    const local = join(dir, 's3-pass-artifacts');
    const events: RunEvent[] = [];
    const result = await runUat(
      options('s3-pass', {
        artifactsUrl: `s3://${BUCKET}/uat/pass`,
        artifactsDir: local,
        reporter: (event) => events.push(event),
      }),
    );
    expect(result).toMatchObject({ outcome: 'passed', exitCode: 0, reason: 'the suite passed' });
    expect(result.upload).toEqual({
      url: `s3://${BUCKET}/uat/pass/`,
      uploaded: [
        'started.json',
        'build-log.txt',
        'artifacts/junit_uat.xml',
        'finished.json',
        'artifacts/summary.json',
      ],
    });
    expect(await server().listKeys(BUCKET, 'uat/pass/')).toEqual(
      LAYOUT.map((key) => `uat/pass/${key}`),
    );
    const log = `${lines.join('\n')}\n`;
    expect(await text('uat/pass/build-log.txt')).toBe(log);
    expect(readFileSync(join(local, 'uat.log'), 'utf8')).toBe(log);
    expect(await text('uat/pass/artifacts/junit_uat.xml')).toBe(`${junit}\n`);
    expect((await server().getObject(BUCKET, 'uat/pass/build-log.txt'))?.contentType).toBe(
      'text/plain; charset=utf-8',
    );

    const started = await json('uat/pass/started.json');
    const finished = await json('uat/pass/finished.json');
    expect(started.timestamp).toBe(Math.floor(Date.parse(result.startedAt) / 1000));
    expect(started.metadata).toMatchObject({ 'run-id': result.runId, namespace: 's3-pass' });
    expect(finished).toMatchObject({
      passed: true,
      result: 'SUCCESS',
      metadata: { outcome: 'passed', 'exit-code': '0', tests: '2', failures: '0' },
    });
    expect(finished.timestamp).toBeGreaterThanOrEqual(started.timestamp as number);
    const summary = await json('uat/pass/artifacts/summary.json');
    expect(summary).toMatchObject({ outcome: 'passed', runId: result.runId });
    expect(summary.cleanup).toEqual(result.cleanup);
    // The upload is a step the caller sees, before clean-up.
    const steps = events.flatMap((e) => (e.type === 'step' ? [`${e.step}:${e.status}`] : []));
    expect(steps.indexOf('upload:done')).toBeLessThan(steps.indexOf('profile:start'));
    expect(steps.lastIndexOf('upload:done')).toBeLessThan(steps.indexOf('cleanup:start'));
  });

  it('says FAILURE after a failing run, keeping exit code 1', async () => {
    useServerEnv(server());
    await suiteLog('s3-fail', ['test_kfp.py::test_run FAILED']);
    const result = await runUat(
      options('s3-fail', {
        artifactsUrl: `s3://${BUCKET}/uat/fail`,
        podAnnotations: { [KWOK_ANNOTATIONS.exitCode]: '3', [KWOK_ANNOTATIONS.runFor]: '1s' },
      }),
    );
    expect(result).toMatchObject({ outcome: 'failed', exitCode: 1 });
    expect(await server().listKeys(BUCKET, 'uat/fail/')).toEqual(
      LAYOUT.filter((key) => !key.includes('junit')).map((key) => `uat/fail/${key}`),
    );
    expect(await json('uat/fail/finished.json')).toMatchObject({
      passed: false,
      result: 'FAILURE',
      metadata: { outcome: 'failed', 'exit-code': '1', 'suite-exit-code': '3' },
    });
    expect(await text('uat/fail/build-log.txt')).toBe('test_kfp.py::test_run FAILED\n');
  });

  it('says ABORTED after an interrupted run, with what the suite had written', async () => {
    useServerEnv(server());
    await suiteLog('s3-abort', ['running a long suite']);
    const abort = new AbortController();
    const result = await runUat(
      options('s3-abort', {
        artifactsUrl: `s3://${BUCKET}/uat/abort`,
        podAnnotations: { [KWOK_ANNOTATIONS.runFor]: '120s' },
        signal: abort.signal,
        reporter: (event) => {
          if (event.type === 'log') abort.abort(new Error('SIGINT'));
        },
      }),
    );
    expect(result).toMatchObject({ outcome: 'interrupted', exitCode: 130 });
    expect(result.upload?.error).toBeUndefined();
    expect(await json('uat/abort/finished.json')).toMatchObject({
      passed: false,
      result: 'ABORTED',
      metadata: { outcome: 'interrupted', reason: 'interrupted: SIGINT' },
    });
    expect(await text('uat/abort/build-log.txt')).toBe('running a long suite\n');
    expect(result.cleanup.leftovers).toEqual([]);
  });

  it('takes the credentials from a profile in the shared files (AWS_PROFILE)', async () => {
    const s = server();
    const config = join(dir, 'aws-config');
    const credentials = join(dir, 'aws-credentials');
    writeFileSync(config, '[profile ci]\nregion = us-east-1\n');
    writeFileSync(
      credentials,
      `[ci]\naws_access_key_id = ${s.accessKeyId}\naws_secret_access_key = ${s.secretAccessKey}\n`,
    );
    for (const name of AWS_NAMES) Reflect.deleteProperty(process.env, name);
    Object.assign(process.env, {
      AWS_PROFILE: 'ci',
      AWS_CONFIG_FILE: config,
      AWS_SHARED_CREDENTIALS_FILE: credentials,
    });
    await suiteLog('s3-profile', ['ok']);
    const result = await runUat(
      options('s3-profile', {
        artifactsUrl: `s3://${BUCKET}/uat/profile`,
        s3: { endpoint: s.endpoint },
      }),
    );
    expect(result).toMatchObject({ outcome: 'passed', exitCode: 0 });
    expect(await server().listKeys(BUCKET, 'uat/profile/')).toContain('uat/profile/finished.json');
  });

  it('ends before making anything when started.json is refused, naming the key (wrong key)', async () => {
    useServerEnv(server(), { AWS_SECRET_ACCESS_KEY: 'not-the-secret' });
    const events: RunEvent[] = [];
    const result = await runUat(
      options('s3-refused', {
        artifactsUrl: `s3://${BUCKET}/uat/refused`,
        reporter: (event) => events.push(event),
      }),
    );
    expect(result).toMatchObject({ outcome: 'error', exitCode: 2 });
    expect(result.reason).toMatch(
      /^cannot upload the run's artifacts: s3:\/\/ci-results\/uat\/refused\/started\.json: SignatureDoesNotMatch: .* \(HTTP 403\)$/,
    );
    expect(result.upload).toMatchObject({
      uploaded: [],
      notUploaded: ['build-log.txt', 'finished.json', 'artifacts/summary.json'],
    });
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'step',
        step: 'upload',
        status: 'failed',
        message: expect.stringContaining('s3://ci-results/uat/refused/started.json') as string,
      }),
    );
    await expect(client.get(resources.profiles, 's3-refused')).rejects.toThrow();
    expect(await server().listKeys(BUCKET, 'uat/refused/')).toEqual([]);
  });

  it('makes a passing run exit 2 when the server goes away before its results are up', async () => {
    const late = await startS3Server({ buckets: [BUCKET] });
    try {
      useServerEnv(late);
      await suiteLog('s3-lost', ['a suite that passes']);
      const warnings: string[] = [];
      const result = await runUat(
        options('s3-lost', {
          artifactsUrl: `s3://${BUCKET}/uat/lost`,
          podAnnotations: { [KWOK_ANNOTATIONS.runFor]: '3s' },
          uploadTimeoutMs: 20_000,
          reporter: (event) => {
            if (event.type === 'step' && event.step === 'suite' && event.status === 'start') {
              void late.stop();
            }
            if (event.type === 'warning') warnings.push(event.message);
          },
        }),
      );
      expect(result.outcome).toBe('passed');
      expect(result.exitCode).toBe(2);
      expect(result.upload).toMatchObject({
        uploaded: ['started.json'],
        notUploaded: ['finished.json', 'artifacts/summary.json'],
      });
      expect(result.upload?.error).toMatch(
        /^s3:\/\/ci-results\/uat\/lost\/build-log\.txt: .*ECONNREFUSED/,
      );
      expect(result.reason).toBe(
        `the suite passed; the artifacts upload failed: ${result.upload?.error ?? ''}`,
      );
      expect(result.cleanup.leftovers).toEqual([]);
    } finally {
      await late.stop();
    }
  });
});
