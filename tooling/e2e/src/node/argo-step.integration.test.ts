// kfx's Argo step for real: Argo Workflows' controller (a process on this machine) and executor
// (an image on the real node), both built from the Go module by the test bed, run Workflows made
// from the WorkflowTemplate `kfx uat manifests --format argo` prints, whose step runs the kfx/cli
// image (what `npm run images` builds) under the ServiceAccount `kfx uat rbac` binds, and runs a
// real suite on the node. One real S3 server (versitygw, on the host's address of the node's
// network) is both Argo's artifact repository and where the step uploads with the template's
// artifacts, s3-endpoint and s3-secret parameters, in Prow's layout. A passing suite makes a
// Succeeded Workflow; a failing one a Failed Workflow with exit code 1; a Workflow stopped mid-run
// (`argo stop`: spec.shutdown) has kfx upload an aborted run and clean up, leaving no Profile,
// namespace, Job or Secret of kfx's, and no Argo pod once the Workflows are deleted. Each run's
// Prow files and Argo's output artifacts are read back from the bucket (of a stopped run, Argo
// saves only the log so far: its executor does not wait for kfx once stopped).
// It owns its control plane: it needs a real node.
import type { V1Pod } from '@kubernetes/client-node';
import { containersUnavailable } from '@kfx/images';
import {
  kubectl,
  startArgo,
  startControlPlane,
  startS3Server,
  waitFor,
  type Argo,
  type ControlPlane,
  type S3Server,
} from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runApp } from '../apps.js';
import { exists, getJson, listJson } from '../cluster.js';
import { loadAppImages } from './app-images.js';
import { onRealNode, realNodeAvailable } from './pods.js';

const NAMESPACE = 'kfx-system';
const BUCKET = 'ci-results';
/** The Secret of the S3 credentials: the template's default s3-secret, also Argo's. */
const S3_SECRET = 'kfx-uat-s3';
const noImages = realNodeAvailable ? await containersUnavailable() : undefined;
const title = noImages
  ? `kfx uat run as an Argo step on a real node (skipped: ${noImages})`
  : onRealNode('kfx uat run as an Argo step on a real node');

/** One check, reported as pytest would with the runner's JUnit markers around its JUnit. */
const SUITE = `#!/bin/sh
echo "collected 1 item"
if [ -n "$SUITE_SLEEP" ]; then echo "suite running"; sleep "$SUITE_SLEEP"; fi
if [ "$SUITE_MODE" = fail ]; then
  echo "tests/test_mode.py::test_mode FAILED"
  result='<testcase classname="tests.test_mode" name="test_mode"><failure message="asked to fail"/></testcase>'
  failures=1
else
  echo "tests/test_mode.py::test_mode PASSED"
  result='<testcase classname="tests.test_mode" name="test_mode"/>'
  failures=0
fi
echo "--- kfx:junit begin ---"
echo "<testsuite name=\\"uats\\" tests=\\"1\\" failures=\\"$failures\\">$result</testsuite>"
echo "--- kfx:junit end ---"
[ "$failures" -eq 0 ]
`;

interface NodeStatus {
  type: string;
  phase: string;
  message?: string;
  outputs?: { exitCode?: string; artifacts?: { name: string }[] };
}
interface Workflow {
  status?: { phase?: string; message?: string; nodes?: Record<string, NodeStatus> };
}

let env: ControlPlane;
let argo: Argo | undefined;
let s3: S3Server | undefined;
let suiteImage = '';

async function kfxYaml(args: readonly string[]): Promise<string> {
  const { code, stdout, stderr } = await runApp('@kfx/cli', args);
  if (code !== 0) throw new Error(`kfx ${args.join(' ')} exited ${String(code)}: ${stderr}`);
  return stdout;
}

/** `kubectl create secret generic <name> --from-literal=…` in the step's namespace. */
async function createSecret(name: string, data: Record<string, string>): Promise<void> {
  await kubectl(env.kubeconfigPath, [
    '-n',
    NAMESPACE,
    'create',
    'secret',
    'generic',
    name,
    ...Object.entries(data).map(([k, v]) => `--from-literal=${k}=${v}`),
  ]);
}

/** What `argo submit --from workflowtemplate/kfx-uat -p …` creates, with the suite's variables. */
async function submit(name: string, variables: Record<string, string>): Promise<void> {
  await createSecret(`${name}-env`, variables);
  const parameters = {
    image: suiteImage,
    command: 'sh /suite/run.sh',
    'env-secret': `${name}-env`,
    // The pod reaches the server on the host's address of the node's network, with no proxy.
    artifacts: `s3://${BUCKET}/uat/${name}`,
    's3-endpoint': bucket().endpoints[1] ?? '',
  };
  await kubectl(
    env.kubeconfigPath,
    ['create', '-f', '-'],
    JSON.stringify({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Workflow',
      metadata: { name, namespace: NAMESPACE },
      spec: {
        workflowTemplateRef: { name: 'kfx-uat' },
        arguments: {
          parameters: Object.entries(parameters).map(([n, value]) => ({ name: n, value })),
        },
      },
    }),
  );
}

const hasEnded = (workflow: Workflow) =>
  ['Succeeded', 'Failed', 'Error'].includes(workflow.status?.phase ?? '');

const workflowNamed = (name: string) =>
  getJson<Workflow>(env.kubeconfigPath, ['workflow', name], NAMESPACE);

function finished(name: string): Promise<Workflow> {
  return waitFor(
    async () => {
      const workflow = await workflowNamed(name);
      return hasEnded(workflow)
        ? { done: true, value: workflow }
        : {
            done: false,
            saw: `${workflow.status?.phase ?? 'no phase'} ${workflow.status?.message ?? ''}`,
          };
    },
    { description: `Workflow ${name} to finish`, timeoutMs: 300_000, intervalMs: 1000 },
  );
}

/** `kubectl logs` of one container of a Pod in the step's namespace. */
const containerLog = (pod: string, container: string) =>
  kubectl(env.kubeconfigPath, ['logs', '-n', NAMESPACE, pod, '-c', container]);

const stepOf = (workflow: Workflow) =>
  Object.values(workflow.status?.nodes ?? {}).find((n) => n.type === 'Pod');

function bucket(): S3Server {
  if (!s3) throw new Error('the S3 server did not start');
  return s3;
}

/** The objects under `prefix` in the bucket, by key relative to it. */
async function objectsUnder(prefix: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const key of await bucket().listKeys(BUCKET, prefix)) {
    const object = await bucket().getObject(BUCKET, key);
    files.set(key.slice(prefix.length), object?.body.toString() ?? '');
  }
  return files;
}

/** What kfx uploaded for the Workflow `name`, in Prow's layout, and finished.json read. */
async function spyglassOf(name: string) {
  const files = await objectsUnder(`uat/${name}/`);
  const finishedJson = JSON.parse(files.get('finished.json') ?? '{}') as {
    passed?: boolean;
    result?: string;
    metadata?: Record<string, string>;
  };
  return { files, finishedJson };
}

/** Argo's output artifacts of the Workflow `name` (the repository's keyFormat), by file name. */
async function argoOutputsOf(name: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const [key, body] of await objectsUnder(`argo/${name}/`)) {
    files.set(key.split('/').pop() ?? '', body);
  }
  return files;
}

/**
 * The suite's log and JUnit (one file, written to both places) in kfx's upload and in Argo's
 * output artifacts, and the outcome in Argo's summary.json.
 */
async function expectSuiteRecord(
  name: string,
  files: Map<string, string>,
  expected: { log: string; junit: string; outcome: string },
): Promise<void> {
  expect(files.get('build-log.txt')).toContain(expected.log);
  expect(files.get('artifacts/junit_uat.xml')).toContain(expected.junit);
  const outputs = await argoOutputsOf(name);
  expect(outputs.get('junit.xml')).toContain(expected.junit);
  expect(outputs.get('uat.log')).toContain(expected.log);
  expect(JSON.parse(outputs.get('summary.json') ?? '{}')).toMatchObject({
    outcome: expected.outcome,
  });
}

async function nothingOfKfxLeft(log = ''): Promise<void> {
  expect(await exists(env.kubeconfigPath, ['profile', 'test-kubeflow']), log).toBe(false);
  expect(await exists(env.kubeconfigPath, ['namespace', 'test-kubeflow']), log).toBe(false);
  const ofKfx = ['-A', '-l', 'app.kubernetes.io/managed-by=kfx-uat'];
  expect(await listJson(env.kubeconfigPath, ['jobs', ...ofKfx])).toEqual([]);
  expect(await listJson(env.kubeconfigPath, ['secrets', ...ofKfx])).toEqual([]);
  expect(await listJson(env.kubeconfigPath, ['pods', ...ofKfx])).toEqual([]);
}

describe.skipIf(!realNodeAvailable || noImages !== undefined)(title, () => {
  beforeAll(async () => {
    env = await startControlPlane({ components: ['node'] });
    const node = env.node;
    if (!node) throw new Error('no node');
    // The step's image: the kfx/cli app image `npm run images` builds, loaded into the node.
    const [cliImage = ''] = await loadAppImages(node, ['cli']);
    const kfxImage = cliImage.replace(/^localhost\//, '');
    suiteImage = await node.loadShellImage({
      name: 'kfx.test/uat-suite:1',
      entries: [{ path: '/suite/run.sh', content: SUITE, mode: 0o755 }],
    });
    s3 = await startS3Server({ addresses: ['127.0.0.1', node.hostIp], buckets: [BUCKET] });
    await kubectl(env.kubeconfigPath, ['create', 'namespace', NAMESPACE]);
    // As the READMEs say: the upload's credentials under the standard AWS names.
    await createSecret(S3_SECRET, {
      AWS_ACCESS_KEY_ID: s3.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
    });
    // As the READMEs say: the identity, then the step (in place before the controller starts,
    // which resolves a template from its own cache: see ArgoOptions.manifests).
    const manifests = [
      await kfxYaml(['uat', 'rbac', '--service-account', `${NAMESPACE}:kfx-uat`]),
      await kfxYaml(['uat', 'manifests', '--format', 'argo', '--kfx-image', kfxImage]),
    ];
    // Argo's S3 driver, on the same server: the executor (the pod's wait container) uploads.
    const credential = (key: string) => ({ name: S3_SECRET, key });
    argo = await startArgo(env, {
      manifests,
      artifactRepository: {
        s3: {
          endpoint: `${node.hostIp}:${String(s3.port)}`,
          bucket: BUCKET,
          region: s3.region,
          insecure: true,
          keyFormat: 'argo/{{workflow.name}}/{{pod.name}}',
          accessKeySecret: credential('AWS_ACCESS_KEY_ID'),
          secretKeySecret: credential('AWS_SECRET_ACCESS_KEY'),
        },
      },
    });
  });

  afterAll(async () => {
    await argo?.stop();
    await s3?.stop();
    await env.stop();
  });

  it('passes: the Workflow Succeeded, its run and Argo’s artifacts in the bucket', async () => {
    await submit('uat-pass', {});
    const workflow = await finished('uat-pass');
    expect(workflow.status?.phase, JSON.stringify(workflow.status)).toBe('Succeeded');
    const step = stepOf(workflow);
    expect(step?.outputs?.exitCode).toBe('0');
    expect(step?.outputs?.artifacts?.map((a) => a.name).sort()).toEqual([
      'junit',
      'log',
      'summary',
    ]);
    const { files, finishedJson } = await spyglassOf('uat-pass');
    expect([...files.keys()].sort()).toEqual([
      'artifacts/junit_uat.xml',
      'artifacts/summary.json',
      'build-log.txt',
      'finished.json',
      'started.json',
    ]);
    expect(JSON.parse(files.get('started.json') ?? '{}')).toMatchObject({
      metadata: { profile: 'test-kubeflow', image: suiteImage },
    });
    expect(finishedJson).toMatchObject({
      passed: true,
      result: 'SUCCESS',
      metadata: { outcome: 'passed' },
    });
    await expectSuiteRecord('uat-pass', files, {
      log: 'tests/test_mode.py::test_mode PASSED',
      junit: '<testsuite name="uats" tests="1" failures="0"',
      outcome: 'passed',
    });
    await nothingOfKfxLeft();
  });

  it('fails: the Workflow Failed with the suite’s exit code 1, the failing JUnit in the bucket', async () => {
    await submit('uat-fail', { SUITE_MODE: 'fail' });
    const workflow = await finished('uat-fail');
    expect(workflow.status?.phase, JSON.stringify(workflow.status)).toBe('Failed');
    const step = stepOf(workflow);
    expect(step?.outputs?.exitCode).toBe('1');
    expect(step?.message).toContain('exit code 1');
    const { files, finishedJson } = await spyglassOf('uat-fail');
    expect(files.has('started.json')).toBe(true);
    expect(finishedJson).toMatchObject({
      passed: false,
      result: 'FAILURE',
      metadata: { outcome: 'failed', 'exit-code': '1' },
    });
    await expectSuiteRecord('uat-fail', files, {
      log: 'tests/test_mode.py::test_mode FAILED',
      junit: '<failure message="asked to fail"/>',
      outcome: 'failed',
    });
    await nothingOfKfxLeft();
  });

  it('stopped mid-run (argo stop): kfx uploads an aborted run, cleans up, leaves nothing', async () => {
    await submit('uat-stop', { SUITE_SLEEP: '600' });
    // The suite runs on the node in the test namespace (a Workflow that ended first fails here).
    const ended = await waitFor(
      async () => {
        const pods = await listJson<V1Pod>(env.kubeconfigPath, ['pods'], 'test-kubeflow').catch(
          () => [],
        );
        if (pods.some((p) => p.status?.containerStatuses?.[0]?.state?.running))
          return { done: true, value: undefined };
        const workflow = await workflowNamed('uat-stop');
        return hasEnded(workflow)
          ? { done: true, value: workflow.status }
          : { done: false, saw: pods.map((p) => p.status?.phase).join(',') || 'no suite pod' };
      },
      { description: 'the suite to run', timeoutMs: 150_000, intervalMs: 1000 },
    );
    expect(ended, 'the Workflow ended before its suite ran').toBeUndefined();
    await kubectl(env.kubeconfigPath, [
      '-n',
      NAMESPACE,
      'patch',
      'workflow',
      'uat-stop',
      '--type',
      'merge',
      '-p',
      '{"spec":{"shutdown":"Stop"}}',
    ]);
    const workflow = await finished('uat-stop');
    expect(workflow.status?.phase).toBe('Failed');
    // kfx got SIGTERM, deleted what the run made and exited with 143.
    const [pod] = await listJson<V1Pod>(
      env.kubeconfigPath,
      ['pods', '-l', 'workflows.argoproj.io/workflow=uat-stop'],
      NAMESPACE,
    );
    const podName = pod?.metadata?.name ?? '';
    // The step's container and Argo's executor (the outputs are saved once it has ended).
    const main = await waitFor(
      async () => {
        const now = await getJson<V1Pod>(env.kubeconfigPath, ['pod', podName], NAMESPACE);
        const states = Object.fromEntries(
          (now.status?.containerStatuses ?? []).map((c) => [c.name, c.state]),
        );
        const step = states.main?.terminated;
        return step && states.wait?.terminated
          ? { done: true, value: step }
          : { done: false, saw: JSON.stringify(states) };
      },
      { description: 'the kfx step and the executor to end', timeoutMs: 300_000, intervalMs: 1000 },
    );
    const log = await containerLog(podName, 'main');
    expect(main.exitCode, log).toBe(143);
    await nothingOfKfxLeft(log);
    // Before cleaning up, kfx wrote the run off as aborted, with the suite's log so far.
    const { files, finishedJson } = await spyglassOf('uat-stop');
    expect(files.has('started.json'), log).toBe(true);
    expect(finishedJson, log).toMatchObject({
      passed: false,
      result: 'ABORTED',
      metadata: { outcome: 'interrupted' },
    });
    expect(files.get('build-log.txt')).toContain('suite running');
    // Argo's executor saves the outputs as soon as the stop reaches it (its wait ends on
    // SIGTERM), without waiting for kfx: the log so far, before summary.json exists.
    const outputs = await argoOutputsOf('uat-stop');
    const executorLog = await containerLog(podName, 'wait');
    expect(outputs.get('uat.log'), executorLog).toContain('suite running');
    // The Workflows deleted, their pods go with them: no Argo pod is left.
    await kubectl(env.kubeconfigPath, ['-n', NAMESPACE, 'delete', 'workflows', '--all', '--wait']);
    await waitFor(
      async () => {
        const pods = await listJson<V1Pod>(env.kubeconfigPath, ['pods'], NAMESPACE);
        return pods.length === 0
          ? { done: true, value: undefined }
          : { done: false, saw: pods.map((p) => p.metadata?.name).join(', ') };
      },
      { description: 'no Argo pod left', timeoutMs: 120_000, intervalMs: 1000 },
    );
  });
});
