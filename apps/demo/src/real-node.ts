// The demo on a real node: pods really run, so the proxy settings kfx-webhook injects are shown in
// use. A real forward proxy (squid, on the host's address on the node's network, the Service
// `proxy` of namespace `kfx-demo` for pods) forwards only to an origin on this machine; a
// container created with no proxy settings fetches from it and squid's log names the pod. The UAT
// run executes a real suite image built here (a static shell and a script that prints pytest-like
// output and JUnit).
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { resources, type KubeClient } from '@kfx/kube-runtime/client';
import type { ControlPlane, ControlPlaneNode, Egress } from '@kfx/testenv';
import { runUat, type UatResult } from '@kfx/uat-runner';
import { DEMO_PROFILE, uatReporter, uatSummary } from './scenario.js';
import { table } from './table.js';
import type { Testenv } from './testenv.js';

/** The namespace of what the demo cluster provides, and its egress proxy as pods name it. */
const DEMO_NAMESPACE = 'kfx-demo';
export const DEMO_PROXY_URL = `http://proxy.${DEMO_NAMESPACE}:3128`;

/** squid and an origin behind it (the demo's stand-in for the internet), squid as a Service. */
export async function startEgress(
  testenv: Testenv,
  env: ControlPlane,
  node: ControlPlaneNode,
): Promise<Egress> {
  const egress = await testenv.startEgress(node, {
    hostName: 'origin.demo',
    body: 'hello from the internet\n',
  });
  try {
    await testenv.applyManifests(env.kubeconfigPath, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: DEMO_NAMESPACE },
    });
    await testenv.applyHostService(env.kubeconfigPath, {
      namespace: DEMO_NAMESPACE,
      name: 'proxy',
      ip: node.hostIp,
      ports: [{ port: 3128, targetPort: Number(new URL(egress.proxy.url).port) }],
    });
    await node.serviceRouted(DEMO_NAMESPACE, 'proxy');
  } catch (error) {
    await egress.stop();
    throw error;
  }
  return egress;
}

const SHELL_IMAGE = 'kfx.demo/shell:1';

/** A container created with no proxy settings fetches from the origin: through the proxy. */
export async function showRealFetch(
  testenv: Testenv,
  client: KubeClient,
  node: ControlPlaneNode,
  egress: Egress,
): Promise<string> {
  const image = await node.loadShellImage({ name: SHELL_IMAGE });
  const url = egress.url('pip-install');
  await client.create<V1Pod>(
    resources.pods,
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'fetcher', namespace: DEMO_PROFILE },
      spec: {
        restartPolicy: 'Never',
        containers: [{ name: 'app', image, imagePullPolicy: 'Never', command: ['fetch', url] }],
      },
    },
    { namespace: DEMO_PROFILE },
  );
  const pod = await testenv.waitFor(
    async () => {
      const found = await client.get<V1Pod>(resources.pods, 'fetcher', { namespace: DEMO_PROFILE });
      const phase = found.status?.phase;
      return phase === 'Succeeded' || phase === 'Failed'
        ? { done: true, value: found }
        : { done: false, saw: phase ?? 'no status' };
    },
    { description: 'the fetcher pod to finish', timeoutMs: 120_000 },
  );
  const logText = await client.requestText(
    'GET',
    `/api/v1/namespaces/${DEMO_PROFILE}/pods/fetcher/log`,
  );
  const seen = egress.proxy.requests().find((r) => r.url === url);
  return [
    `Pod ${DEMO_PROFILE}/fetcher, created with no proxy settings, ran \`fetch ${url}\` on ${node.name}:`,
    table(
      ['POD IP', 'PHASE', 'OUTPUT', 'SQUID SAW'],
      [
        [
          pod.status?.podIP ?? '',
          pod.status?.phase ?? '',
          logText.trim(),
          seen ? `${seen.client} ${seen.method} ${seen.result}` : '(nothing)',
        ],
      ],
    ),
    '  The origin is reachable only through the proxy: the injected HTTP_PROXY got it there.',
  ].join('\n');
}

const SUITE = `#!/bin/sh
echo "============================= test session starts =============================="
echo "collected 5 items"
fail=0
check() {
  if eval "$2" > /dev/null 2>&1; then echo "tests/test_platform.py::$1 PASSED"; echo "<testcase classname=\\"tests.test_platform\\" name=\\"$1\\"/>" >> /tmp/cases
  else echo "tests/test_platform.py::$1 FAILED"; fail=$((fail + 1)); echo "<testcase classname=\\"tests.test_platform\\" name=\\"$1\\"><failure message=\\"$1 failed\\"/></testcase>" >> /tmp/cases; fi
}
: > /tmp/cases
check test_internet_through_proxy 'fetch "$ORIGIN_URL"'
check test_service_account_token 'test -s /var/run/secrets/kubernetes.io/serviceaccount/token'
check test_namespace 'test "$(cat /var/run/secrets/kubernetes.io/serviceaccount/namespace)" = "$USER_NAMESPACE"'
check test_kubeflow_namespace 'test "$KUBEFLOW_NAMESPACE" = kubeflow'
# A cluster service: called directly, with the Pipelines token kfx mounted.
check test_pipelines_token '(unset http_proxy HTTP_PROXY; wget -q -O - --header "Authorization: Bearer $(cat "$KF_PIPELINES_SA_TOKEN_PATH")" "http://ml-pipeline.$KUBEFLOW_NAMESPACE:8888/apis/v2beta1/healthz")'
echo "<testsuite name=\\"uats\\" tests=\\"5\\" failures=\\"$fail\\" errors=\\"0\\" skipped=\\"0\\">$(cat /tmp/cases)</testsuite>" > /tmp/junit.xml
echo "========================= $((5 - fail)) passed, $fail failed ========================="
[ "$fail" -eq 0 ]
`;

/**
 * `kfx uat run` with a real suite image: it runs in a container on the node, and calls a stand-in
 * for Kubeflow Pipelines (`ml-pipeline.kubeflow`) that checks its token as KFP does.
 */
export async function showRealUat(
  testenv: Testenv,
  client: KubeClient,
  env: ControlPlane,
  node: ControlPlaneNode,
  egress: Egress,
  log: (line: string) => void,
): Promise<{ text: string; result: UatResult }> {
  const image = await node.loadShellImage({
    name: 'kfx.demo/uat-suite:1',
    entries: [{ path: '/suite/run.sh', content: SUITE, mode: 0o755 }],
  });
  const kfp = await testenv.startFakeKfp(env, node);
  try {
    const result = await runUat({
      client,
      image,
      command: ['sh', '/suite/run.sh'],
      junitFile: '/tmp/junit.xml',
      env: { HTTP_PROXY: DEMO_PROXY_URL, ORIGIN_URL: egress.url('uat') },
      artifactsDir: join(env.dir, 'uat-artifacts'),
      timeoutMs: 120_000,
      reporter: uatReporter(log),
    });
    const accepted = kfp.calls.find((call) => call.status === 200);
    const pipelines = accepted
      ? `  Kubeflow Pipelines (a stand-in at ${kfp.url} that checks tokens as KFP does) accepted the token kfx mounted, as ${accepted.user ?? '?'}.`
      : '  Kubeflow Pipelines (a stand-in that checks tokens as KFP does) saw no accepted call.';
    return {
      text: `${uatSummary(result, `in a real container on ${node.name}`)}\n${pipelines}`,
      result,
    };
  } finally {
    await kfp.stop();
  }
}
