import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInputFrom, type RunFlags } from './run-input.js';

const flags: RunFlags = {
  owner: 'test-kubeflow@email.com',
  createNamespace: 'auto',
  controllerWait: '10s',
  profileTimeout: '2m',
  editorClusterRole: 'edit',
  runnerRole: 'kfx-uat-runner-in-namespace',
  image: 'uats:1',
  timeout: '1h',
  startTimeout: '5m',
  cleanupTimeout: '2m',
  workdir: '/uat',
  sourceImage: 'alpine/git:2.45.2',
  kubeflowNamespace: 'kubeflow',
  pipelinesToken: true,
  istioSidecar: 'native',
  output: 'text',
};

const files: Record<string, string> = {
  'params.env': 'HTTPS_PROXY=http://file-proxy:3128\nSUITE=kfp\n',
  'bad.env': '# proxy\nHTTPS_PROXY=http://proxy:3128\nnot a pair\n',
  'job.yaml': 'apiVersion: v1\nkind: Pod\n',
};
const readFile = (path: string) => {
  const text = files[path];
  if (text === undefined) throw new Error('ENOENT: no such file');
  return text;
};

describe('runInputFrom', () => {
  it('reads --env FOLDER as a mounted Secret, and takes an empty filter or command as none', () => {
    // What a pipeline step passes: every parameter, some empty, and the Secret as a folder.
    const dir = mkdtempSync(join(tmpdir(), 'kfx-env-folder-'));
    try {
      writeFileSync(join(dir, 'SUITE'), 'kfp');
      const input = runInputFrom({ ...flags, env: dir, filter: '', command: ' ' }, {}, {});
      expect(input.env).toEqual({ SUITE: 'kfp' });
      expect(input.filter).toBeUndefined();
      expect(input.command).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('turns flags into run options', () => {
    const input = runInputFrom(
      {
        ...flags,
        command: 'pytest -k "kfp and not gpu"',
        podAnnotation: ['a=1', 'b=x=y'],
        timeout: '90m',
      },
      {},
      {},
      readFile,
    );
    expect(input.command).toEqual(['pytest', '-k', 'kfp and not gpu']);
    expect(input.podAnnotations).toEqual({ a: '1', b: 'x=y' });
    expect(input.timeoutMs).toBe(5_400_000);
    expect(input.env).toEqual({});
    expect(input.namespace).toBeUndefined();
    // Fixed before the run starts, so that an interrupted run can be named for `kfx uat clean`.
    expect(input.runId).toMatch(/^[a-z0-9]{5}$/);
  });

  it("fills the env from the machine's proxy, the env file winning where both set a name", () => {
    const input = runInputFrom(
      { ...flags, env: 'params.env', proxyFromEnv: true },
      {},
      { HTTPS_PROXY: 'http://runner-proxy:8080', NO_PROXY: '.corp' },
      readFile,
    );
    expect(input.env).toMatchObject({
      HTTPS_PROXY: 'http://file-proxy:3128',
      https_proxy: 'http://runner-proxy:8080',
      SUITE: 'kfp',
    });
    expect(input.env?.NO_PROXY).toMatch(/^\.corp,localhost,127\.0\.0\.1,\.svc/);
  });

  it('names the file and line of a malformed env file', () => {
    expect(() => runInputFrom({ ...flags, env: 'bad.env' }, {}, {}, readFile)).toThrow(
      'bad.env:3: expected KEY=VALUE, found "not a pair"',
    );
  });

  it('names the flag of every other mistake', () => {
    const mistakes: [Partial<RunFlags>, string | RegExp][] = [
      [{ env: 'missing.env' }, '--env: cannot read missing.env: ENOENT: no such file'],
      [
        { job: 'job.yaml' },
        'job.yaml: expected kind Job with apiVersion batch/v1, found kind Pod apiVersion v1',
      ],
      [{ timeout: 'soon' }, '--timeout: "soon" is not a duration (examples: 90s, 5m, 1h30m)'],
      [{ podAnnotation: ['novalue'] }, '--pod-annotation: expected KEY=VALUE, found "novalue"'],
      [{ command: "pytest 'x" }, /--command: unterminated ' quote/],
      [{ image: undefined }, 'nothing to run: give --image (and --command) or --job FILE'],
      [{ runId: 'Run_1' }, '--run-id: "Run_1" is not a valid run id'],
    ];
    for (const [change, message] of mistakes) {
      expect(() => runInputFrom({ ...flags, ...change }, {}, {}, readFile)).toThrow(message);
    }
    expect(() =>
      runInputFrom({ ...flags, profile: 'p' }, { namespace: 'ns' }, {}, readFile),
    ).toThrow(/--profile and -n\/--namespace exclude each other/);
  });

  it('takes a folder and an s3:// location from --artifacts, with the S3 flags', () => {
    const input = runInputFrom(
      {
        ...flags,
        artifacts: ['results', 's3://ci-results/uat/7'],
        s3Endpoint: 'http://minio.ci:9000',
      },
      {},
      {},
      readFile,
    );
    expect(input).toMatchObject({
      artifactsDir: 'results',
      artifactsUrl: 's3://ci-results/uat/7',
      s3: { endpoint: 'http://minio.ci:9000', pathStyle: undefined },
    });
    const only = runInputFrom(
      { ...flags, artifacts: ['S3://ci-results'], s3PathStyle: false },
      {},
      {},
      readFile,
    );
    expect(only).toMatchObject({ artifactsDir: undefined, artifactsUrl: 'S3://ci-results' });
    expect(only.s3).toEqual({ endpoint: undefined, pathStyle: false });
  });

  it('takes an empty --artifacts or --s3-endpoint as not given, as a pipeline step passes them', () => {
    const step = runInputFrom(
      { ...flags, artifacts: ['/kfx-uat/results', ''], s3Endpoint: '' },
      {},
      {},
      readFile,
    );
    expect(step).toMatchObject({ artifactsDir: '/kfx-uat/results', artifactsUrl: undefined });
    expect(step).not.toHaveProperty('s3');
    const upload = runInputFrom(
      { ...flags, artifacts: ['/kfx-uat/results', 's3://ci-results/uat/7'], s3Endpoint: ' ' },
      {},
      {},
      readFile,
    );
    expect(upload.s3).toEqual({ endpoint: undefined, pathStyle: undefined });
  });

  it('refuses two folders, two s3:// locations, or S3 flags without a location', () => {
    for (const artifacts of [
      ['a', 'b'],
      ['s3://x-1/a', 's3://x-1/b'],
    ]) {
      expect(() => runInputFrom({ ...flags, artifacts }, {}, {}, readFile)).toThrow(
        /^--artifacts: give at most one folder and one s3:\/\/ location/,
      );
    }
    expect(() =>
      runInputFrom(
        { ...flags, artifacts: ['results'], s3Endpoint: 'http://minio:9000' },
        {},
        {},
        readFile,
      ),
    ).toThrow(/^--s3-endpoint: no s3:\/\/ location to upload to/);
  });

  it("passes the suite's source and the Kubeflow settings on", () => {
    const input = runInputFrom(
      {
        ...flags,
        git: 'https://git.corp/uats.git',
        gitRef: 'v1.9',
        pipelinesToken: false,
        istioSidecar: 'off',
        kubeflowNamespace: 'kf',
      },
      {},
      {},
      readFile,
    );
    expect(input).toMatchObject({
      git: { url: 'https://git.corp/uats.git', ref: 'v1.9' },
      workdir: '/uat',
      sourceImage: 'alpine/git:2.45.2',
      pipelinesToken: false,
      istioSidecar: 'off',
      kubeflowNamespace: 'kf',
    });
    expect(() => runInputFrom({ ...flags, gitRef: 'main' }, {}, {}, readFile)).toThrow(
      '--git-ref needs --git',
    );
  });

  it('refuses a git ref that git would read as an option, before any kubeconfig is read', () => {
    const git = { ...flags, git: 'https://git.corp/uats.git' };
    expect(() =>
      runInputFrom({ ...git, gitRef: '--upload-pack=touch /tmp/x' }, {}, {}, readFile),
    ).toThrow(/^--git-ref: "--upload-pack=touch \/tmp\/x" starts with "-", which git would read/);
    expect(() => runInputFrom({ ...git, git: '--upload-pack=x' }, {}, {}, readFile)).toThrow(
      /^--git: the URL starts with "-"/,
    );
    // Credentials stay in the URL here: the run takes them out into a Secret.
    expect(
      runInputFrom({ ...git, git: 'https://bot:t0ken@git.corp/uats.git' }, {}, {}, readFile).git,
    ).toEqual({ url: 'https://bot:t0ken@git.corp/uats.git', ref: undefined });
  });
});
