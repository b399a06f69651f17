// What the demo does on the embedded control plane once kfx-webhook and kfx-controller run: a
// Profile with quota labels, a Pod, two claims and a UAT run, each shown as a table of what kfx
// did. Every read goes through the API server, so the tables show what the cluster stored.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type {
  V1Container,
  V1EnvVar,
  V1PersistentVolumeClaim,
  V1Pod,
  V1ResourceQuota,
} from '@kubernetes/client-node';
import { resources, type KubeClient, type KubeObject } from '@kfx/kube-runtime/client';
import type { ControlPlane } from '@kfx/testenv';
import { JUNIT_BEGIN, JUNIT_END, runUat, type Reporter, type UatResult } from '@kfx/uat-runner';
import { table } from './table.js';
import type { Testenv } from './testenv.js';

export const DEMO_PROFILE = 'team-demo';
const PROXY_VARIABLES = /^(https?_proxy|no_proxy)$/i;

interface Condition {
  type: string;
  status: string;
  message?: string;
}

type Profile = KubeObject & { status?: { conditions?: Condition[] } };

const shorten = (value: string, width = 60) =>
  value.length > width ? `${value.slice(0, width - 1)}…` : value;

/** A Profile with quota overrides; waits until the controller reports it reconciled. */
export async function showProfile(testenv: Testenv, client: KubeClient): Promise<string> {
  await client.create(resources.profiles, {
    apiVersion: 'kubeflow.org/v1',
    kind: 'Profile',
    metadata: {
      name: DEMO_PROFILE,
      labels: { 'quotas.kfx.dev/requests.cpu': '8', 'quotas.kfx.dev/gpu': '1' },
    },
    spec: { owner: { kind: 'User', name: 'alice@example.com' } },
  });
  const condition = await testenv.waitFor(
    async () => {
      const profile = await client.get<Profile>(resources.profiles, DEMO_PROFILE);
      const c = profile.status?.conditions?.find((x) => x.type === 'KfxReconciled');
      return c?.status === 'True'
        ? { done: true, value: c }
        : { done: false, saw: c?.message ?? 'no condition yet' };
    },
    { description: `Profile ${DEMO_PROFILE} to be reconciled`, timeoutMs: 60_000 },
  );
  const namespace = DEMO_PROFILE;
  const kinds = [
    resources.resourceQuotas,
    resources.limitRanges,
    resources.roleBindings,
    resources.networkPolicies,
    resources.configMaps,
  ];
  const rows: string[][] = [];
  for (const ref of kinds) {
    const list = await client.list(ref, {
      namespace,
      labelSelector: 'app.kubernetes.io/managed-by=kfx',
    });
    for (const item of list.items) {
      const reconciler = item.metadata?.labels?.['kfx.dev/reconciler'] ?? '';
      let detail = '';
      if (ref === resources.resourceQuotas) {
        const hard = (item as V1ResourceQuota).spec?.hard ?? {};
        detail = `requests.cpu=${hard['requests.cpu'] ?? '-'} requests.nvidia.com/gpu=${hard['requests.nvidia.com/gpu'] ?? '-'} (from labels)`;
      }
      rows.push([ref.kind, item.metadata?.name ?? '', reconciler, detail]);
    }
  }
  return [
    `Profile ${DEMO_PROFILE} (labels quotas.kfx.dev/requests.cpu=8, quotas.kfx.dev/gpu=1): ${condition.message ?? ''}`,
    table(['KIND', 'NAME', 'RECONCILER', 'DETAIL'], rows),
  ].join('\n');
}

/**
 * A Pod whose init container, app container and sidecar get the proxy variables: a server-side
 * dry run, so the API server admits it (webhook included) and answers what it would store, and
 * nothing tries to pull its images.
 */
export async function showPod(testenv: Testenv, client: KubeClient): Promise<string> {
  // Pods are admitted once their namespace's default service account exists.
  await testenv.waitFor(
    async () => {
      await client.get(resources.serviceAccounts, 'default', { namespace: DEMO_PROFILE });
      return { done: true, value: undefined };
    },
    { description: `the default service account of ${DEMO_PROFILE}`, timeoutMs: 60_000 },
  );
  const pod = await client.create<V1Pod>(
    resources.pods,
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'notebook', namespace: DEMO_PROFILE },
      spec: {
        initContainers: [{ name: 'fetch-data', image: 'curlimages/curl' }],
        containers: [
          {
            name: 'notebook',
            image: 'kubeflownotebookswg/jupyter-scipy',
            env: [{ name: 'http_proxy', value: 'http://team-proxy:8080' }],
          },
          { name: 'istio-proxy', image: 'istio/proxyv2' },
        ],
      },
    },
    { namespace: DEMO_PROFILE, dryRun: true },
  );
  const containers: V1Container[] = [
    ...(pod.spec?.initContainers ?? []),
    ...(pod.spec?.containers ?? []),
  ];
  const rows = containers.flatMap((c) => {
    const vars = (c.env ?? []).filter((e: V1EnvVar) => PROXY_VARIABLES.test(e.name));
    if (vars.length === 0)
      return [[c.name, '(none)', c.name === 'istio-proxy' ? 'excluded sidecar' : '']];
    return vars.map((e) => [c.name, e.name, shorten(e.value ?? '')]);
  });
  return [
    `Pod ${DEMO_PROFILE}/notebook as the API server would store it (kfx-webhook /mutate/proxy-injector, server-side dry run):`,
    table(['CONTAINER', 'VARIABLE', 'VALUE'], rows),
    '  notebook keeps its own http_proxy; neither case of it is touched.',
  ].join('\n');
}

/** Two claims: ReadWriteMany lands on nfs-client, ReadWriteOnce stays on the default class. */
export async function showClaims(client: KubeClient): Promise<string> {
  const rows: string[][] = [];
  for (const [name, mode] of [
    ['shared-data', 'ReadWriteMany'],
    ['scratch', 'ReadWriteOnce'],
  ] as const) {
    const claim = await client.create<V1PersistentVolumeClaim>(
      resources.persistentVolumeClaims,
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name, namespace: DEMO_PROFILE },
        spec: { accessModes: [mode], resources: { requests: { storage: '1Gi' } } },
      },
      { namespace: DEMO_PROFILE },
    );
    const original = claim.metadata?.annotations?.['pvc-rewriter.kfx.dev/original-storage-class'];
    rows.push([name, mode, claim.spec?.storageClassName ?? '', original ?? '(not rewritten)']);
  }
  return [
    'PersistentVolumeClaims without a storageClassName (the default class is "standard"):',
    table(['CLAIM', 'ACCESS', 'STORAGECLASS', 'ORIGINAL CLASS'], rows),
  ].join('\n');
}

/** A UAT run as `kfx uat run` does it: Profile, Job on a kwok node, live log, JUnit, clean-up. */
export async function showUat(
  testenv: Testenv,
  client: KubeClient,
  env: ControlPlane,
  log: (line: string) => void,
): Promise<{ text: string; result: UatResult }> {
  const logFile = join(env.dir, 'uat-suite.log');
  writeFileSync(logFile, '');
  testenv.appendLog(
    logFile,
    '============================= test session starts ==============================',
    'collected 3 items',
    'tests/test_notebooks.py::test_kfp_pipeline PASSED',
    'tests/test_notebooks.py::test_katib_experiment PASSED',
    'tests/test_notebooks.py::test_kserve_predict PASSED',
    '============================== 3 passed in 41.2s ===============================',
    JUNIT_BEGIN,
    '<testsuite name="uats" tests="3" failures="0" errors="0" skipped="0"><testcase classname="tests.test_notebooks" name="test_kfp_pipeline"/><testcase classname="tests.test_notebooks" name="test_katib_experiment"/><testcase classname="tests.test_notebooks" name="test_kserve_predict"/></testsuite>',
    JUNIT_END,
  );
  const removeLogs = await testenv.serveLogsFromFile(env.kubeconfigPath, {
    namespace: 'test-kubeflow',
    file: logFile,
  });
  try {
    const result = await runUat({
      client,
      image: 'registry.example/kubeflow-uats:demo',
      command: ['pytest', '-q', 'tests/'],
      env: {
        HTTP_PROXY: 'http://proxy.demo.example:3128',
        HTTPS_PROXY: 'http://proxy.demo.example:3128',
      },
      podAnnotations: { [testenv.KWOK_ANNOTATIONS.runFor]: '2s' },
      artifactsDir: join(env.dir, 'uat-artifacts'),
      timeoutMs: 120_000,
      reporter: uatReporter(log),
    });
    return { text: uatSummary(result, 'on a kwok node'), result };
  } finally {
    await removeLogs();
  }
}

/** Prints a UAT run's steps and its suite's log as they happen. */
export const uatReporter =
  (log: (line: string) => void): Reporter =>
  (event) => {
    if (event.type === 'step' && event.status !== 'start')
      log(`  uat ${event.step}: ${event.message}`);
    if (event.type === 'log') log(`  │ ${event.text}`);
  };

/** The table of a UAT run's result. */
export function uatSummary(result: UatResult, where: string): string {
  const junit = result.junit;
  return [
    `UAT run (kfx uat run), ${where}:`,
    table(
      ['OUTCOME', 'EXIT', 'TESTS', 'FAILURES', 'LOG LINES', 'ARTIFACTS'],
      [
        [
          result.outcome,
          String(result.exitCode),
          String(junit?.tests ?? '-'),
          String(junit?.failures ?? '-'),
          String(result.log.lines),
          result.artifactsDir ?? '',
        ],
      ],
    ),
    `  ${result.reason}`,
  ].join('\n');
}
