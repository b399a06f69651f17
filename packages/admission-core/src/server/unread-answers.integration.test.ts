// A tenant who can reach the webhook's port (nothing but a NetworkPolicy or a client certificate
// stops a Pod from connecting to it) posts reviews whose answers are megabytes and never reads
// them. The real kube-apiserver, calling the same server meanwhile, must still get every Pod
// mutated: neither admitted without its mutation (failurePolicy Ignore, the kfx-webhook chart's
// default) nor refused. The attacker connects from 127.0.0.2 and the apiserver from 127.0.0.1:
// two clients, as a tenant's Pod and the apiserver are in a cluster. On the package's shared
// control plane, its webhook configuration scoped to the file's namespace.
import type { V1Pod } from '@kubernetes/client-node';
import type { ClientHttp2Session } from 'node:http2';
import {
  applyManifests,
  h2Session,
  postH2Unread,
  runKubectl,
  useSharedControlPlane,
  waitFor,
  type KubectlRun,
  type SharedControlPlane,
} from '@kfx/testenv';
import { proxyMutation } from '@kfx/testenv/bench';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Plain } from '../review/plain-json.js';
import { admissionReviewFor } from '../review/review-builder.js';
import { startTestServer, type TestServer } from '../testing/test-server.js';
import { renderWebhookConfiguration } from '../webhook-configuration.js';
import { defineMutatingWebhook } from '../webhook.js';

type Pod = Plain<V1Pod>;

// Both spellings of three proxy variables appended to every container: about 490 bytes of patch
// per container, so 30,000 containers make a 14 MiB patch and a 19 MiB answer (kfx-webhook's
// proxy injector writes more per container: 20,000 containers made a 22.5 MiB answer).
const proxy = defineMutatingWebhook(proxyMutation('/mutate/proxy'));

function pod(name: string, containers = 2): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace },
    spec: {
      containers: Array.from({ length: containers }, (_, i) => ({
        name: `c${i}`,
        image: 'busybox',
      })),
    },
  };
}

function review(uid: string, containers: number): string {
  return JSON.stringify(admissionReviewFor({ object: pod(uid, containers), uid }));
}

/** The file's namespace on the package's shared control plane, and its webhook's name. */
let namespace = '';
let env: SharedControlPlane | undefined;
let t: TestServer | undefined;
let kubectl: (args: readonly string[], stdin?: string) => Promise<KubectlRun>;
const attackers: ClientHttp2Session[] = [];

beforeAll(async () => {
  const plane = await useSharedControlPlane(inject('kfxControlPlane'), 'unread-answers');
  env = plane;
  namespace = plane.namespace;
  kubectl = (args, stdin) => runKubectl(plane.kubeconfigPath, args, stdin);
  // Every bound at its default, except the answer deadline: the attacker's answers must still
  // be held while the Pods below are created (the deadline has a test of its own).
  t = await startTestServer({ webhooks: [proxy], answerTimeoutMs: 600_000 });
  const configuration = renderWebhookConfiguration({
    kind: 'mutating',
    name: namespace,
    namespace: 'kfx-system',
    url: `https://127.0.0.1:${t.port}`,
    caBundle: t.certs.caCert,
    webhooks: [
      {
        webhook: proxy,
        // Called for this file's namespaces only: other files share the plane.
        namespaceSelector: plane.scope(),
        rules: [
          { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] },
        ],
        failurePolicy: 'Ignore',
        timeoutSeconds: 5,
      },
    ],
  });
  await applyManifests(plane.kubeConfig, JSON.stringify(configuration));
  await waitFor(
    async () => {
      const probe = await kubectl(
        ['create', '--dry-run=server', '-o', 'json', '-f', '-'],
        JSON.stringify(pod('probe')),
      );
      return probe.stdout.includes('HTTP_PROXY')
        ? { done: true, value: null }
        : { done: false, saw: probe.stdout + probe.stderr };
    },
    { description: 'the webhook to mutate a dry-run Pod', timeoutMs: 30_000 },
  );
});

afterAll(async () => {
  stopAttack();
  if (env)
    await kubectl(['delete', 'mutatingwebhookconfiguration', namespace, '--ignore-not-found']);
  await t?.stop();
  await env?.release();
});

/** Answers the server has given (or refused) on the proxy route so far, and how many were 429. */
async function counts(server: TestServer): Promise<{ answered: number; throttled: number }> {
  const text = await server.metricsText();
  let answered = 0;
  let throttled = 0;
  for (const match of text.matchAll(
    /^kfx_admission_requests_total\{webhook="proxy",[^}]*outcome="([a-z-]+)"\} (\d+)$/gm,
  )) {
    answered += Number(match[2]);
    if (match[1] === 'throttled') throttled += Number(match[2]);
  }
  return { answered, throttled };
}

/**
 * Posts reviews of `containers` containers from 127.0.0.2, one at a time, each once the one
 * before was answered, and reads none of the answers; `until: 'refused'` stops at the first 429
 * (every byte the server lets this client hold is then held), else after `most` reviews.
 */
async function attack(
  label: string,
  containers: number,
  options: { most: number; until?: 'refused' },
): Promise<void> {
  const server = t;
  if (!server) throw new Error('no server');
  let session: ClientHttp2Session | undefined;
  for (let i = 0; i < options.most; i += 1) {
    // A new connection every 50 reviews, within the server's 100 streams per connection.
    if (i % 50 === 0) {
      session = await h2Session(server.port, server.certs.caCert, { localAddress: '127.0.0.2' });
      session.on('error', () => undefined);
      attackers.push(session);
    }
    if (!session) throw new Error('no session');
    const before = await counts(server);
    await postH2Unread(session, '/mutate/proxy', review(`${label}-${i}`, containers));
    const after = await waitFor(
      async () => {
        const now = await counts(server);
        return now.answered > before.answered
          ? { done: true, value: now }
          : { done: false, saw: `${label}-${i} not answered yet` };
      },
      { description: `the server to answer ${label}-${i}`, timeoutMs: 60_000 },
    );
    if (options.until === 'refused' && after.throttled > before.throttled) return;
  }
}

/** Creates Pods through the apiserver; each must come back with the proxy in every container. */
async function expectInjected(label: string, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    const created = await kubectl(
      ['create', '-o', 'json', '-f', '-'],
      JSON.stringify(pod(`${label}-${i}`)),
    );
    expect(created.stderr).toBe('');
    const stored = JSON.parse(created.stdout) as Pod;
    for (const container of stored.spec?.containers ?? []) {
      const names = container.env?.map((variable) => variable.name) ?? [];
      expect(names, `the proxy variables of ${label}-${i}/${container.name}`).toContain(
        'HTTP_PROXY',
      );
    }
  }
}

function stopAttack(): void {
  for (const attacker of attackers.splice(0)) attacker.destroy();
}

describe('a webhook whose answers a tenant posts for and never reads, called by a real kube-apiserver', () => {
  it('still mutates the Pods the apiserver sends while a 30,000-container review waits unread', async () => {
    try {
      await attack('huge', 30_000, { most: 1 });
      await expectInjected('during-huge', 3);
    } finally {
      stopAttack();
    }
  });

  it('still mutates them while a client holds every answer the server lets it hold, unread', async () => {
    try {
      // Answers of 1.2 MiB (1,800 containers: a patch just under maxPatchBytes) until the
      // server refuses one, then of 68 KiB, then of 1.4 KiB: every byte of room is taken.
      await attack('large', 1_800, { most: 40, until: 'refused' });
      await attack('medium', 100, { most: 200, until: 'refused' });
      await attack('small', 1, { most: 400, until: 'refused' });
      await expectInjected('during-many', 3);
      // The attack was in effect: answers were held for the attacker all along.
      const metrics = (await t?.metricsText()) ?? '';
      const held = Number(/^kfx_admission_in_flight_bytes (\d+)$/m.exec(metrics)?.[1]);
      expect(held).toBeGreaterThan(4 * 1024 * 1024);
    } finally {
      stopAttack();
    }
  });

  it('refuses a Pod whose patch would pass maxPatchBytes, telling its creator why', async () => {
    const refused = await kubectl(
      ['create', '-f', '-'],
      JSON.stringify(pod('too-many-containers', 3_000)),
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('admission webhook "proxy.kfx.dev" denied the request');
    expect(refused.stderr).toContain(`Pod ${namespace}/too-many-containers`);
    expect(refused.stderr).toContain('(maxPatchBytes)');
    const get = await kubectl(['get', 'pod', '-n', namespace, 'too-many-containers']);
    expect(get.stderr).toContain('NotFound');
  });
});
