// A webhook built with admission-core, served on its development certificates and registered
// with the configurations renderWebhookConfiguration makes, called by a real kube-apiserver. It
// owns its control plane: it proves that the rendered namespaceSelector keeps kube-system out,
// which narrowing the configuration to a shared plane's namespaces would hide.
import type { V1Pod } from '@kubernetes/client-node';
import {
  applyManifests,
  runKubectl,
  serveWebhook,
  startControlPlane,
  type ControlPlane,
  type KubectlRun,
  type ServedWebhook,
} from '@kfx/testenv';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDevCertificates } from './dev-certificates.js';
import type { Plain } from './review/plain-json.js';
import { createAdmissionServer } from './server/server.js';
import { renderWebhookConfiguration } from './webhook-configuration.js';
import { defineMutatingWebhook, defineValidatingWebhook } from './webhook.js';

type Pod = Plain<V1Pod>;

const dryRunsSeen: boolean[] = [];

// Appends (never inserts) so that the patch is one `add` per container.
const injector = defineMutatingWebhook<Pod>({
  name: 'injector',
  path: '/mutate/injector',
  failureMode: 'admit',
  mutate(request, context) {
    dryRunsSeen.push(context.dryRun);
    const pod = request.object;
    pod.metadata = {
      ...pod.metadata,
      labels: { ...pod.metadata?.labels, 'kfx.dev/injected': 'true' },
    };
    for (const container of pod.spec?.containers ?? []) {
      (container.env ??= []).push({ name: 'KFX_INJECTED', value: 'yes' });
    }
    return { allowed: true };
  },
});

const broken = defineMutatingWebhook<Pod>({
  name: 'broken',
  path: '/mutate/broken',
  failureMode: 'deny',
  mutate() {
    throw new Error('rules file /etc/kfx/rules.yaml is unreadable');
  },
});

const guard = defineValidatingWebhook<Pod>({
  name: 'guard',
  path: '/validate/guard',
  failureMode: 'deny',
  validate: (request) =>
    request.object?.metadata?.labels?.['kfx.dev/deny'] === 'true'
      ? { allowed: false, reason: 'pods labelled kfx.dev/deny=true are refused by policy' }
      : { allowed: true },
});

function pod(name: string, labels: Record<string, string> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'team-a', labels },
    spec: {
      containers: [
        { name: 'main', image: 'busybox', env: [{ name: 'EXISTING', value: '1' }] },
        { name: 'sidecar', image: 'busybox' },
      ],
    },
  };
}

const podRules = [
  { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] },
];

let env: ControlPlane | undefined;
let kubectl: (args: readonly string[], stdin?: string) => Promise<KubectlRun>;
let served: ServedWebhook | undefined;

beforeAll(async () => {
  const plane = await startControlPlane();
  env = plane;
  kubectl = (args, stdin) => runKubectl(plane.kubeconfigPath, args, stdin);
  await applyManifests(plane.kubeConfig, [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } },
  ]);
  served = await serveWebhook({
    kubeconfig: plane.kubeConfig,
    // The package's own development certificates, as kfx-webhook's dev mode writes them.
    certificates: (dir) => writeDevCertificates(dir, { ipAddresses: ['127.0.0.1'] }),
    async serve(tls) {
      const admission = createAdmissionServer({
        webhooks: [injector, broken, guard],
        tls,
        host: '127.0.0.1',
        port: 0,
        metricsPort: false,
        registry: new Registry(),
        logger: pino({ level: 'warn' }),
      });
      return { port: (await admission.start()).port, stop: () => admission.close() };
    },
    configurations({ url, caCert }) {
      const common = { name: 'kfx-test', namespace: 'kfx-system', url, caBundle: caCert };
      return [
        renderWebhookConfiguration({
          ...common,
          kind: 'mutating',
          webhooks: [
            { webhook: injector, rules: podRules },
            {
              webhook: broken,
              rules: podRules,
              objectSelector: { matchExpressions: [{ key: 'kfx.dev/break', operator: 'Exists' }] },
            },
          ],
        }),
        renderWebhookConfiguration({
          ...common,
          kind: 'validating',
          webhooks: [{ webhook: guard, rules: podRules }],
        }),
      ];
    },
    async called() {
      const probe = await kubectl(
        ['create', '--dry-run=server', '-o', 'json', '-f', '-'],
        JSON.stringify(pod('probe')),
      );
      return probe.stdout.includes('kfx.dev/injected') || probe.stdout + probe.stderr;
    },
  });
});

afterAll(async () => {
  await served?.stop();
  await env?.stop();
});

describe('a webhook built with admission-core, called by a real kube-apiserver', () => {
  it('gets its mutation persisted: label added, env appended to every container', async () => {
    const created = await kubectl(['create', '-f', '-'], JSON.stringify(pod('notebook-0')));
    expect(created.stderr).toBe('');
    const stored = JSON.parse(
      (await kubectl(['get', 'pod', '-n', 'team-a', 'notebook-0', '-o', 'json'])).stdout,
    ) as Pod;
    expect(stored.metadata?.labels?.['kfx.dev/injected']).toBe('true');
    expect(stored.spec?.containers.map((c) => c.env)).toEqual([
      [
        { name: 'EXISTING', value: '1' },
        { name: 'KFX_INJECTED', value: 'yes' },
      ],
      [{ name: 'KFX_INJECTED', value: 'yes' }],
    ]);
  });

  it('tells the handler about a server-side dry run, and nothing is stored', async () => {
    dryRunsSeen.length = 0;
    const dry = await kubectl(
      ['create', '--dry-run=server', '-o', 'json', '-f', '-'],
      JSON.stringify(pod('dry-0')),
    );
    expect((JSON.parse(dry.stdout) as Pod).metadata?.labels?.['kfx.dev/injected']).toBe('true');
    expect(dryRunsSeen).toEqual([true]);
    const get = await kubectl(['get', 'pod', '-n', 'team-a', 'dry-0']);
    expect(get.stderr).toContain('NotFound');
  });

  it('shows a denial to the kubectl user with the handler reason', async () => {
    const denied = await kubectl(
      ['create', '-f', '-'],
      JSON.stringify(pod('denied-0', { 'kfx.dev/deny': 'true' })),
    );
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain(
      'admission webhook "guard.kfx.dev" denied the request: pods labelled kfx.dev/deny=true are refused by policy',
    );
  });

  it('shows a failing failureMode-deny handler with the webhook, the object and the error', async () => {
    const failed = await kubectl(
      ['create', '-f', '-'],
      JSON.stringify(pod('broken-0', { 'kfx.dev/break': 'yes' })),
    );
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toContain(
      'webhook broken failed on Pod team-a/broken-0 (CREATE): rules file /etc/kfx/rules.yaml is unreadable',
    );
  });

  it('never sees kube-system, which the rendered namespaceSelector excludes', async () => {
    const system = pod('system-0', { app: 'system' });
    system.metadata = { ...system.metadata, namespace: 'kube-system' };
    const created = await kubectl(['create', '-o', 'json', '-f', '-'], JSON.stringify(system));
    const stored = JSON.parse(created.stdout) as Pod;
    expect(stored.metadata?.labels).toEqual({ app: 'system' });
    expect(stored.spec?.containers[1]?.env).toBeUndefined();
  });
});
