// A webhook at its maxInFlight bound, called by a real kube-apiserver: the server answers 429
// with Retry-After while its only admission place is held, and the apiserver retries until the
// Pod is admitted. On the package's shared control plane, its webhook configuration scoped to
// the file's namespace.
import type { V1Pod } from '@kubernetes/client-node';
import {
  applyManifests,
  h2Session,
  postH2,
  runKubectl,
  useSharedControlPlane,
  waitFor,
  type Answer,
  type KubectlRun,
  type SharedControlPlane,
} from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Plain } from '../review/plain-json.js';
import { admissionReviewFor } from '../review/review-builder.js';
import { startTestServer, type TestServer } from '../testing/test-server.js';
import { renderWebhookConfiguration } from '../webhook-configuration.js';
import { defineMutatingWebhook } from '../webhook.js';

type Pod = Plain<V1Pod>;

// Holds the server's only admission place until released.
let release: () => void = () => undefined;
const released = new Promise<void>((resolve) => (release = resolve));
const holder = defineMutatingWebhook({
  name: 'holder',
  path: '/mutate/holder',
  failureMode: 'admit',
  mutate: async () => {
    await released;
    return { allowed: true };
  },
});

const labeller = defineMutatingWebhook<Pod>({
  name: 'labeller',
  path: '/mutate/labeller',
  failureMode: 'deny',
  mutate(request) {
    const pod = request.object;
    pod.metadata = { ...pod.metadata, labels: { ...pod.metadata?.labels, 'kfx.dev/seen': 'yes' } };
    return { allowed: true };
  },
});

function pod(name: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace },
    spec: { containers: [{ name: 'main', image: 'busybox' }] },
  };
}

/** The file's namespace on the package's shared control plane, and its webhook's name. */
let namespace = '';
let env: SharedControlPlane | undefined;
let t: TestServer | undefined;
let kubectl: (args: readonly string[], stdin?: string) => Promise<KubectlRun>;

beforeAll(async () => {
  const plane = await useSharedControlPlane(inject('kfxControlPlane'), 'overload');
  env = plane;
  namespace = plane.namespace;
  kubectl = (args, stdin) => runKubectl(plane.kubeconfigPath, args, stdin);
  t = await startTestServer({
    webhooks: [holder, labeller],
    maxInFlight: 1,
    handlerTimeoutMs: 120_000,
  });
  const configuration = renderWebhookConfiguration({
    kind: 'mutating',
    name: namespace,
    namespace: 'kfx-system',
    url: `https://127.0.0.1:${t.port}`,
    caBundle: t.certs.caCert,
    webhooks: [
      {
        webhook: labeller,
        // Called for this file's namespaces only: other files share the plane.
        namespaceSelector: plane.scope(),
        rules: [
          { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] },
        ],
        // Without an answer the Pod is refused: it is created only if the retry gets through.
        failurePolicy: 'Fail',
        timeoutSeconds: 30,
      },
    ],
  });
  await applyManifests(env.kubeConfig, JSON.stringify(configuration));
  await waitFor(
    async () => {
      const probe = await kubectl(
        ['create', '--dry-run=server', '-o', 'json', '-f', '-'],
        JSON.stringify(pod('probe')),
      );
      return probe.stdout.includes('kfx.dev/seen')
        ? { done: true, value: null }
        : { done: false, saw: probe.stdout + probe.stderr };
    },
    { description: 'the webhook to label a dry-run Pod', timeoutMs: 30_000 },
  );
});

afterAll(async () => {
  release();
  if (env)
    await kubectl(['delete', 'mutatingwebhookconfiguration', namespace, '--ignore-not-found']);
  await t?.stop();
  await env?.release();
});

describe('a webhook at its maxInFlight bound, called by a real kube-apiserver', () => {
  it('answers 429 with Retry-After, and the apiserver retries until the Pod is admitted', async () => {
    if (!t) throw new Error('no server');
    const server = t;
    // Our own review takes the only place and stays.
    const session = await h2Session(server.port, server.certs.caCert);
    const held: Promise<Answer> = postH2(
      session,
      '/mutate/holder',
      JSON.stringify(admissionReviewFor({ object: pod('held'), uid: 'held' })),
    );
    const created = kubectl(['create', '-o', 'json', '-f', '-'], JSON.stringify(pod('busy-0')));
    // The apiserver's call was refused at least once while the place was taken...
    await waitFor(
      async () => {
        const metrics = await server.metricsText();
        return /kfx_admission_requests_total\{webhook="labeller",operation="unknown",outcome="throttled"\} [1-9]/.test(
          metrics,
        )
          ? { done: true, value: null }
          : { done: false, saw: 'no throttled review yet' };
      },
      { description: 'a throttled review from the apiserver', timeoutMs: 30_000 },
    );
    // ...and once it is free, the apiserver's retry gets through.
    release();
    expect((await held).status).toBe(200);
    session.close();
    const result = await created;
    expect(result.stderr).toBe('');
    expect((JSON.parse(result.stdout) as Pod).metadata?.labels?.['kfx.dev/seen']).toBe('yes');
    expect(await server.metricsText()).toMatch(
      /kfx_admission_requests_total\{webhook="labeller",operation="CREATE",outcome="patched"\} [1-9]/,
    );
  });
});
