// The Pod `kfx uat run` makes for a suite, on a real node: what a suite in a Kubeflow namespace
// needs without any PodDefault, and its files from elsewhere than its image.
// - KUBEFLOW_NAMESPACE and USER_NAMESPACE reach the suite, and the Pipelines token it mounts gets
//   it into a fake `ml-pipeline.kubeflow` that checks tokens as KFP does (a TokenReview with the
//   audience pipelines.kubeflow.org against the real apiserver), while the pod's default token is
//   refused; the namespace is labelled for Istio injection, and the pod that called carries the
//   native-sidecar annotation (there is no Istio here to inject one).
// - A second container that never ends (a classic sidecar's stand-in) does not hang the run: it
//   ends on the suite's exit code, and says so.
// - The suite's files from a local folder and from a git repository at a tag (served by git's own
//   http-backend through a Service), in a namespace that enforces the `restricted` Pod Security
//   level, so the init container that fetches them passes it too; a ref that does not exist ends
//   the run with git's own words.
// - A private repository fetched with the credentials of the URL, none of which is in the Job,
//   the Pod or the log; and a ref that git would read as an option (`--upload-pack=CMD` runs CMD
//   against a local remote) refused by kfx before anything is made, and by the init container's
//   own script when a Job reaches it with one anyway, running nothing.
// It owns its control plane: it needs a real node.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  applyHostService,
  applyManifests,
  kubectl,
  runKubectl,
  startControlPlane,
  startFakeKfp,
  waitFor,
  type ControlPlane,
  type FakeKfp,
} from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { V1Job, V1Pod } from '@kubernetes/client-node';
import { appEntry } from '../apps.js';
import { getJson } from '../cluster.js';
import { gitImageEntries, makeRepository, startGitServer, type GitServer } from './git-server.js';
import { finishedPod, onRealNode, realNodeAvailable } from './pods.js';

const KFP_SUITE = `#!/bin/sh
echo "KUBEFLOW_NAMESPACE=$KUBEFLOW_NAMESPACE USER_NAMESPACE=$USER_NAMESPACE"
url="http://ml-pipeline.$KUBEFLOW_NAMESPACE:8888/apis/v2beta1/healthz"
if wget -q -O - --header "Authorization: Bearer $(cat /var/run/secrets/kubernetes.io/serviceaccount/token)" "$url"; then
  echo "default token: accepted"
else
  echo "default token: refused"
fi
wget -q -O - --header "Authorization: Bearer $(cat "$KF_PIPELINES_SA_TOKEN_PATH")" "$url"
`;

/** The suite of a folder or repository: where it runs, what it reads, that it may write. */
const FILES_SUITE = (version: string) => `#!/bin/sh
set -e
echo "suite ${version} in $(pwd) as $(id -u): $(cat tests/data.txt)"
echo written > out.txt
cat out.txt
`;

const RESTRICTED_JOB = `apiVersion: batch/v1
kind: Job
spec:
  template:
    spec:
      securityContext:
        runAsNonRoot: true
        runAsUser: 1000
        seccompProfile: { type: RuntimeDefault }
      containers:
        - name: suite
          image: kfx.test/kf-suite:1
          command: [sh, run.sh]
          securityContext:
            allowPrivilegeEscalation: false
            capabilities: { drop: [ALL] }
`;

const SIDECAR_JOB = `apiVersion: batch/v1
kind: Job
spec:
  template:
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: suite
          image: kfx.test/kf-suite:1
          command: [sh, -c, 'echo "suite done"; exit 3']
        - name: istio-proxy
          image: kfx.test/kf-suite:1
          command: [sleep, '100000']
`;

const dir = mkdtempSync(join(tmpdir(), 'kfx-e2e-node-uat-pod-'));
let env: ControlPlane | undefined;
const cluster = (): ControlPlane => {
  if (!env) throw new Error('the control plane did not start');
  return env;
};
let kfp: FakeKfp | undefined;
let git: GitServer | undefined;
let shas: string[] = [];

/** The private repository's user and token: neither may show anywhere but in its Secret. */
const GIT_USER = 'ci-bot';
const GIT_TOKEN = 'kfx-token-7f3a9c2e';
/**
 * A ref git would read as an option: with a local remote, git runs it as its upload-pack
 * command, which prints `kfx-42` (a text the ref itself does not hold) and fails.
 */
const OPTION_REF = '--upload-pack=echo kfx-$((6*7)) >&2; false';

interface Exit {
  code: number | null;
  stdout: string;
  summary: { outcome?: string; reason?: string };
}

function uatRun(name: string, args: readonly string[]): Promise<Exit> {
  return kfx(name, [
    'uat',
    'run',
    ...args,
    '--artifacts',
    join(dir, name),
    '--timeout',
    '3m',
    '--start-timeout',
    '2m',
  ]);
}

function kfx(name: string, args: readonly string[]): Promise<Exit> {
  const child = spawn(process.execPath, [appEntry('@kfx/cli'), ...args], {
    env: { ...process.env, KUBECONFIG: cluster().kubeconfigPath, CI: 'true' },
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  return new Promise((resolve) => {
    child.once('close', (code) => {
      let summary: Exit['summary'] = {};
      try {
        summary = JSON.parse(
          readFileSync(join(dir, name, 'summary.json'), 'utf8'),
        ) as Exit['summary'];
      } catch {
        // no summary: the output says why
      }
      resolve({ code, stdout, summary });
    });
  });
}

const namespace = (name: string, labels: Record<string, string>) =>
  applyManifests(cluster().kubeconfigPath, [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } },
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'default-editor', namespace: name },
    },
  ]);

const noPodLeft = (ns: string) =>
  waitFor(
    async () => {
      const pods = (
        await kubectl(cluster().kubeconfigPath, ['get', 'pods', '-n', ns, '-o', 'name'])
      ).trim();
      return pods === '' ? { done: true, value: undefined } : { done: false, saw: pods };
    },
    { description: `no pod left in ${ns}`, timeoutMs: 60_000 },
  );

describe.skipIf(!realNodeAvailable)(onRealNode('the UAT Pod on a real node'), () => {
  beforeAll(async () => {
    env = await startControlPlane({ components: ['node'] });
    const node = env.node;
    if (!node) throw new Error('no node');
    await node.loadShellImage({
      name: 'kfx.test/kf-suite:1',
      entries: [{ path: '/suite/kfp.sh', content: KFP_SUITE, mode: 0o755 }],
    });
    await node.loadShellImage({ name: 'kfx.test/git:1', entries: gitImageEntries() });
    kfp = await startFakeKfp(env, node);
    const repos = join(dir, 'repos');
    const work = join(dir, 'work');
    mkdirSync(repos);
    mkdirSync(work);
    shas = makeRepository(repos, work, 'suite', [
      { tag: 'v1', files: { 'run.sh': FILES_SUITE('v1'), 'tests/data.txt': 'from git' } },
      { tag: 'v2', files: { 'run.sh': FILES_SUITE('v2') } },
    ]);
    mkdirSync(join(dir, 'work-private'));
    makeRepository(repos, join(dir, 'work-private'), 'private', [
      {
        tag: 'v1',
        files: { 'run.sh': FILES_SUITE('private'), 'tests/data.txt': 'from a private git' },
      },
    ]);
    git = await startGitServer(repos, node.hostIp, {
      private: { repository: 'private.git', user: GIT_USER, password: GIT_TOKEN },
    });
    await applyManifests(env.kubeconfigPath, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'git-server' },
    });
    await applyHostService(env.kubeconfigPath, {
      namespace: 'git-server',
      name: 'git',
      ip: node.hostIp,
      ports: [{ port: 80, targetPort: git.port }],
    });
    await node.serviceRouted('git-server', 'git');
    await namespace('uat-mesh', { 'istio-injection': 'enabled' });
    await namespace('uat-restricted', {
      'pod-security.kubernetes.io/enforce': 'restricted',
      'pod-security.kubernetes.io/enforce-version': 'latest',
    });
    writeFileSync(join(dir, 'restricted.yaml'), RESTRICTED_JOB);
    writeFileSync(join(dir, 'sidecar.yaml'), SIDECAR_JOB);
  });

  afterAll(async () => {
    await kfp?.stop();
    await git?.stop();
    await env?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives the suite its namespaces and a token that Kubeflow Pipelines accepts', async () => {
    const run = await uatRun('kfp', [
      '-n',
      'uat-mesh',
      '--image',
      'kfx.test/kf-suite:1',
      '--command',
      'sh /suite/kfp.sh',
    ]);
    expect(run.code, run.stdout).toBe(0);
    const log = readFileSync(join(dir, 'kfp', 'uat.log'), 'utf8');
    expect(log).toContain('KUBEFLOW_NAMESPACE=kubeflow USER_NAMESPACE=uat-mesh');
    expect(log).toContain('default token: refused');
    expect(log).toContain('"user":"system:serviceaccount:uat-mesh:default-editor"');
    const calls = kfp?.calls ?? [];
    const accepted = calls.filter((c) => c.status === 200);
    expect(accepted).toHaveLength(1);
    // The pod that called, in a namespace labelled for Istio injection, asked for a native sidecar.
    expect(accepted[0]?.podAnnotations?.['sidecar.istio.io/nativeSidecar']).toBe('true');
    const refused = calls.filter((c) => c.status === 401);
    expect(refused).toHaveLength(1);
    expect(refused[0]?.refused).toContain('pipelines.kubeflow.org');
    await noPodLeft('uat-mesh');
  });

  it('ends on the suite’s exit code when another container keeps the pod running', async () => {
    const run = await uatRun('sidecar', [
      '-n',
      'uat-mesh',
      '--job',
      join(dir, 'sidecar.yaml'),
      '--istio-sidecar',
      'inject',
    ]);
    expect(run.code, run.stdout).toBe(1);
    expect(run.summary.reason).toMatch(
      /^the suite failed: container suite exited with code 3; pod \S+ kept running \d+ s after container suite ended \(still running: istio-proxy; a sidecar that is not native\?\), so the run ends on its exit code$/,
    );
    expect(run.stdout).toContain('kept running');
    await noPodLeft('uat-mesh');
  });

  it('runs the suite from a local folder, in a restricted namespace', async () => {
    // The namespace does enforce the level: a pod as most images run is refused there.
    const plain = await runKubectl(cluster().kubeconfigPath, [
      'run',
      'plain',
      '-n',
      'uat-restricted',
      '--image',
      'kfx.test/kf-suite:1',
      '--dry-run=server',
    ]);
    expect(plain.stderr).toContain('violates PodSecurity "restricted:latest"');
    const folder = join(dir, 'local-suite');
    mkdirSync(join(folder, 'tests'), { recursive: true });
    writeFileSync(join(folder, 'run.sh'), FILES_SUITE('local'));
    writeFileSync(join(folder, 'tests', 'data.txt'), 'from a folder');
    const run = await uatRun('local', [
      '-n',
      'uat-restricted',
      '--job',
      join(dir, 'restricted.yaml'),
      '--suite-dir',
      folder,
      '--source-image',
      'kfx.test/git:1',
    ]);
    expect(run.code, run.stdout).toBe(0);
    const log = readFileSync(join(dir, 'local', 'uat.log'), 'utf8');
    expect(log).toContain('suite local in /uat as 1000: from a folder');
    expect(log).toContain('written');
    expect(run.stdout).toMatch(/Secret kfx-uat-\S+-files created \(2 files from /);
    await noPodLeft('uat-restricted');
  });

  it('runs the suite from a git repository at a tag, in a restricted namespace', async () => {
    const url = 'http://git.git-server/suite.git';
    const args = [
      '-n',
      'uat-restricted',
      '--job',
      join(dir, 'restricted.yaml'),
      '--git',
      url,
      '--source-image',
      'kfx.test/git:1',
    ];
    const run = await uatRun('git', [...args, '--git-ref', 'v1']);
    expect(run.code, run.stdout).toBe(0);
    expect(readFileSync(join(dir, 'git', 'uat.log'), 'utf8')).toContain(
      'suite v1 in /uat as 1000: from git',
    );
    // The clone came from the pod, through the Service.
    const subnet = cluster().node?.subnet.replace(/0\/24$/, '') ?? '-';
    expect(git?.requests.some((r) => r.from.startsWith(subnet))).toBe(true);

    const byCommit = await uatRun('git-sha', [...args, '--git-ref', shas[0] ?? '']);
    expect(byCommit.code, byCommit.stdout).toBe(0);

    const missing = await uatRun('git-missing', [...args, '--git-ref', 'no-such-tag']);
    expect(missing.code, missing.stdout).toBe(2);
    expect(missing.summary.reason).toMatch(
      /init container kfx-suite-files exited with code \d+: fatal: couldn't find remote ref no-such-tag/,
    );
    await noPodLeft('uat-restricted');
  });
  it('fetches a private repository with the URL’s credentials, kept out of the Job, Pod and log', async () => {
    const run = await uatRun('git-private', [
      '-n',
      'uat-restricted',
      '--job',
      join(dir, 'restricted.yaml'),
      '--git',
      `http://${GIT_USER}:${GIT_TOKEN}@git.git-server/private.git`,
      '--git-ref',
      'v1',
      '--source-image',
      'kfx.test/git:1',
      // Kept, to read the Job and its Pod as the cluster stores them.
      '--keep',
      '--run-id',
      'gitauth',
    ]);
    try {
      expect(run.code, run.stdout).toBe(0);
      const log = readFileSync(join(dir, 'git-private', 'uat.log'), 'utf8');
      expect(log).toContain('suite private in /uat as 1000: from a private git');
      // The pod itself authenticated, after the server's challenge.
      const subnet = cluster().node?.subnet.replace(/0\/24$/, '') ?? '-';
      const fromPod = git?.requests.filter((r) => r.from.startsWith(subnet)) ?? [];
      expect(fromPod.some((r) => r.path.startsWith('/private.git/') && r.user === GIT_USER)).toBe(
        true,
      );
      const job = await getJson<V1Job>(
        cluster().kubeconfigPath,
        ['job', 'kfx-uat-gitauth'],
        'uat-restricted',
      );
      const pods = await getJson<{ items: V1Pod[] }>(
        cluster().kubeconfigPath,
        ['pods', '-l', 'uat.kfx.dev/run-id=gitauth'],
        'uat-restricted',
      );
      expect(pods.items).toHaveLength(1);
      for (const text of [
        JSON.stringify(job),
        JSON.stringify(pods),
        run.stdout,
        log,
        readFileSync(join(dir, 'git-private', 'summary.json'), 'utf8'),
      ]) {
        expect(text).not.toContain(GIT_TOKEN);
      }
    } finally {
      const clean = await kfx('clean-gitauth', [
        'uat',
        'clean',
        '-n',
        'uat-restricted',
        '--run-id',
        'gitauth',
      ]);
      expect(clean.code, clean.stdout).toBe(0);
    }
    expect(
      (
        await kubectl(cluster().kubeconfigPath, [
          'get',
          'secrets',
          '-n',
          'uat-restricted',
          '-o',
          'name',
        ])
      ).trim(),
    ).toBe('');
    await noPodLeft('uat-restricted');
  });

  it('refuses a git ref that git would read as an option, before anything is made', async () => {
    // A local remote: where git runs `--upload-pack`'s command.
    const run = await uatRun('git-option', [
      '-n',
      'uat-restricted',
      '--job',
      join(dir, 'restricted.yaml'),
      '--git',
      '/kfx-suite/files',
      '--git-ref',
      OPTION_REF,
      '--source-image',
      'kfx.test/git:1',
    ]);
    expect(run.code, run.stdout).toBe(2);
    expect(run.stdout).toContain(`--git-ref: "${OPTION_REF}" starts with "-"`);
    expect(run.stdout).not.toContain('kfx-42');
    const jobs = await kubectl(cluster().kubeconfigPath, [
      'get',
      'jobs',
      '-n',
      'uat-restricted',
      '-o',
      'name',
    ]);
    expect(jobs.trim()).toBe('');
  });

  it('has the init container refuse such a ref itself, running nothing', async () => {
    // The Job kfx makes, with its ref then replaced, as a template filled in later could: the
    // init container's own script is the last check before git.
    const kept = await uatRun('git-kept', [
      '-n',
      'uat-restricted',
      '--job',
      join(dir, 'restricted.yaml'),
      '--git',
      'http://git.git-server/suite.git',
      '--git-ref',
      'v1',
      '--source-image',
      'kfx.test/git:1',
      '--keep',
      '--run-id',
      'gitkept',
    ]);
    try {
      expect(kept.code, kept.stdout).toBe(0);
      const job = await getJson<V1Job>(
        cluster().kubeconfigPath,
        ['job', 'kfx-uat-gitkept'],
        'uat-restricted',
      );
      const spec = structuredClone(job.spec?.template.spec);
      const init = spec?.initContainers?.find((c) => c.name === 'kfx-suite-files');
      if (!spec || !init) throw new Error('the kept Job has no init container kfx-suite-files');
      init.env = (init.env ?? []).map((e) =>
        e.name === 'KFX_GIT_REF'
          ? { name: e.name, value: OPTION_REF }
          : e.name === 'KFX_GIT_URL'
            ? { name: e.name, value: '/kfx-suite/files' }
            : e,
      );
      const pod: V1Pod = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'git-option-ref', namespace: 'uat-restricted' },
        spec,
      };
      await applyManifests(cluster().kubeconfigPath, pod);
      const ran = await finishedPod(cluster().kubeconfigPath, 'git-option-ref', 'uat-restricted');
      const ended = ran.status?.initContainerStatuses?.[0]?.state?.terminated;
      expect(ended?.message).not.toContain('kfx-42');
      expect(ended?.message).toContain('starts with "-", which git would read as an option');
      expect(ended?.exitCode).toBe(2);
    } finally {
      await kubectl(cluster().kubeconfigPath, [
        'delete',
        'pod',
        'git-option-ref',
        '-n',
        'uat-restricted',
        '--ignore-not-found',
      ]);
      await kfx('clean-gitkept', ['uat', 'clean', '-n', 'uat-restricted', '--run-id', 'gitkept']);
    }
    await noPodLeft('uat-restricted');
  });
});
