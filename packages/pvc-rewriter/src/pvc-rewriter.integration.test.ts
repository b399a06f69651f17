// The rewriter behind a real kube-apiserver: a bare claim, a StatefulSet's volumeClaimTemplates
// claim and a generic ephemeral volume's claim (both made by kube-controller-manager) land on the
// target class; RWO, ROX, "" and pre-bound claims do not; a missing target class is reported to
// kubectl; namespace labels and new StorageClasses are picked up from the watched caches.
import type { V1Pod, V1StatefulSet } from '@kubernetes/client-node';
import {
  createAdmissionServer,
  renderWebhookConfiguration,
  writeDevCertificates,
  type AdmissionServer,
  type Plain,
} from '@kfx/admission-core';
import { KubeClient, resources, type KubeObject, type ResourceRef } from '@kfx/kube-runtime';
import {
  ensureBinaries,
  registerWebhook,
  startControlPlane,
  waitFor,
  type ControlPlane,
} from '@kfx/testenv';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePvcRewriterConfig } from './config.js';
import { pvcRewriterRegistration } from './registration.js';
import { ORIGINAL_CLASS_ANNOTATION, type Claim } from './rewrite.js';
import { claim } from './testing/claims.js';
import { kubectl } from './testing/kubectl.js';
import { createPvcRewriter, type PvcRewriterWebhook } from './webhook.js';

const RWX = ['ReadWriteMany'];
const statefulSets: ResourceRef = {
  ...resources.deployments,
  resource: 'statefulsets',
  kind: 'StatefulSet',
};

const config = parsePvcRewriterConfig({
  rules: [
    {
      accessModes: RWX,
      namespaceSelector: { matchLabels: { storage: 'premium' } },
      storageClassName: 'premium-rwx',
    },
    { accessModes: RWX, fromStorageClassNames: ['legacy-nfs'], storageClassName: 'nfs-v2' },
    {
      accessModes: RWX,
      fromStorageClassNames: ['<unset>', '<default>'],
      storageClassName: 'nfs-client',
    },
  ],
});

let env: ControlPlane | undefined;
let server: AdmissionServer | undefined;
let rewriter: PvcRewriterWebhook | undefined;
let client: KubeClient;
let kubectlBinary: string;
let dir: string | undefined;

const storageClass = (name: string, isDefault = false) => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: {
    name,
    ...(isDefault
      ? { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }
      : {}),
  },
  provisioner: 'example.com/test',
});

function named(
  name: string,
  spec: Partial<NonNullable<Claim['spec']>>,
  namespace = 'team-a',
): Claim {
  const made = claim(spec);
  made.metadata = { ...made.metadata, name, namespace };
  return made;
}

async function create(object: Claim): Promise<Claim> {
  return client.create(resources.persistentVolumeClaims, object);
}

const classOf = (stored: Claim) => stored.spec?.storageClassName;
const originalOf = (stored: Claim) => stored.metadata?.annotations?.[ORIGINAL_CLASS_ANNOTATION];

async function claimAppears(namespace: string, name: string): Promise<Claim> {
  return waitFor(
    async () => {
      const list = await client.list<Claim & KubeObject>(resources.persistentVolumeClaims, {
        namespace,
      });
      const found = list.items.find((item) => item.metadata?.name === name);
      return found
        ? { done: true, value: found }
        : { done: false, saw: list.items.map((i) => i.metadata?.name).join(',') };
    },
    {
      description: `claim ${namespace}/${name} made by kube-controller-manager`,
      timeoutMs: 60_000,
    },
  );
}

beforeAll(async () => {
  const [{ kubectl: binary }, plane] = await Promise.all([
    ensureBinaries(['kubectl']),
    startControlPlane({ components: ['controller-manager'] }),
  ]);
  kubectlBinary = binary;
  env = plane;
  client = KubeClient.fromKubeConfig(env.kubeConfig, { logger: pino({ level: 'warn' }) });
  for (const sc of [
    storageClass('vsphere-csi', true),
    storageClass('nfs-client'),
    storageClass('premium-rwx'),
  ]) {
    await client.create(resources.storageClasses, sc);
  }
  await client.create(resources.namespaces, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'team-a' },
  });
  await client.create(resources.namespaces, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'team-premium', labels: { storage: 'premium' } },
  });
  dir = await mkdtemp(join(tmpdir(), 'kfx-pvc-rewriter-it-'));
  const certs = await writeDevCertificates(dir, { ipAddresses: ['127.0.0.1'] });
  const logger = pino({ level: 'warn' });
  rewriter = createPvcRewriter(config, { client, logger });
  expect(rewriter.readiness().ok).toBe(false); // not synced before start()
  await rewriter.start();
  // Synced after the first list; ready once the watch that follows is established.
  const started = rewriter;
  await waitFor(
    () => {
      const { ok, reasons } = started.readiness();
      return Promise.resolve(
        ok ? { done: true, value: null } : { done: false, saw: reasons.join('; ') },
      );
    },
    { description: 'the caches to be ready', timeoutMs: 10_000 },
  );
  server = createAdmissionServer({
    webhooks: [rewriter],
    tls: { certFile: certs.certFile, keyFile: certs.keyFile },
    host: '127.0.0.1',
    port: 0,
    metricsPort: false,
    logger,
  });
  const { port } = await server.start();
  const [webhook] =
    renderWebhookConfiguration({
      kind: 'mutating',
      name: 'kfx-pvc-rewriter',
      namespace: 'kfx-system',
      url: `https://127.0.0.1:${port}`,
      caBundle: certs.caCert,
      webhooks: [pvcRewriterRegistration(rewriter)],
    }).webhooks ?? [];
  await registerWebhook(env.kubeConfig, {
    name: 'kfx-pvc-rewriter',
    url: webhook?.clientConfig.url ?? '',
    caBundle: certs.caCert,
    rules: webhook?.rules ?? [],
    ...(webhook?.namespaceSelector ? { namespaceSelector: webhook.namespaceSelector } : {}),
    failurePolicy: 'Fail',
  });
  await waitFor(
    async () => {
      const probe = await client.create(
        resources.persistentVolumeClaims,
        named('probe', { accessModes: RWX }),
        {
          dryRun: true,
        },
      );
      return classOf(probe) === 'nfs-client'
        ? { done: true, value: null }
        : { done: false, saw: String(classOf(probe)) };
    },
    { description: 'the rewriter to rewrite a dry-run claim', timeoutMs: 30_000 },
  );
});

afterAll(async () => {
  await server?.close();
  await rewriter?.stop();
  client.close();
  await env?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the PVC rewriter behind a real kube-apiserver', () => {
  it('moves a bare ReadWriteMany claim to the target class, recording the class it arrived with', async () => {
    const stored = await create(named('shared', { accessModes: RWX }));
    expect(classOf(stored)).toBe('nfs-client');
    // The apiserver's DefaultStorageClass admission filled in the default before the webhook ran.
    expect(originalOf(stored)).toBe('vsphere-csi');
  });

  it("moves a StatefulSet's volumeClaimTemplates claim, created by kube-controller-manager", async () => {
    const statefulSet: Plain<V1StatefulSet> = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'kale', namespace: 'team-a' },
      spec: {
        serviceName: 'kale',
        replicas: 1,
        selector: { matchLabels: { app: 'kale' } },
        template: {
          metadata: { labels: { app: 'kale' } },
          spec: { containers: [{ name: 'main', image: 'busybox' }] },
        },
        volumeClaimTemplates: [
          {
            metadata: { name: 'data' },
            spec: { accessModes: RWX, resources: { requests: { storage: '5Gi' } } },
          },
        ],
      },
    };
    await client.create(statefulSets, statefulSet);
    const made = await claimAppears('team-a', 'data-kale-0');
    expect(classOf(made)).toBe('nfs-client');
    expect(originalOf(made)).toBe('vsphere-csi');
  });

  it("moves a generic ephemeral volume's claim, created by kube-controller-manager", async () => {
    const pod: Plain<V1Pod> = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'pipeline-step', namespace: 'team-a' },
      spec: {
        containers: [
          {
            name: 'main',
            image: 'busybox',
            volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }],
          },
        ],
        volumes: [
          {
            name: 'scratch',
            ephemeral: {
              volumeClaimTemplate: {
                spec: { accessModes: RWX, resources: { requests: { storage: '1Gi' } } },
              },
            },
          },
        ],
      },
    };
    await client.create(resources.pods, pod);
    const made = await claimAppears('team-a', 'pipeline-step-scratch');
    expect(classOf(made)).toBe('nfs-client');
    expect(made.metadata?.ownerReferences?.[0]?.kind).toBe('Pod');
  });

  it('leaves ReadWriteOnce, ReadOnlyMany, static ("") and pre-bound claims alone', async () => {
    const rwo = await create(named('rwo', { accessModes: ['ReadWriteOnce'] }));
    const rox = await create(named('rox', { accessModes: ['ReadOnlyMany'] }));
    const staticClaim = await create(named('static', { accessModes: RWX, storageClassName: '' }));
    const preBound = await create(
      named('pre-bound', { accessModes: RWX, volumeName: 'pv-nfs-0001' }),
    );
    expect(classOf(rwo)).toBe('vsphere-csi');
    expect(classOf(rox)).toBe('vsphere-csi');
    expect(classOf(staticClaim)).toBe('');
    expect(classOf(preBound)).not.toBe('nfs-client');
    expect(preBound.spec?.volumeName).toBe('pv-nfs-0001');
    for (const stored of [rwo, rox, staticClaim, preBound])
      expect(originalOf(stored)).toBeUndefined();
  });

  it('follows namespace labels from the watched Namespace cache, changes included', async () => {
    expect(classOf(await create(named('premium', { accessModes: RWX }, 'team-premium')))).toBe(
      'premium-rwx',
    );
    await client.patch(resources.namespaces, 'team-a', {
      metadata: { labels: { storage: 'premium' } },
    });
    const relabelled = await waitFor(
      async () => {
        const dry = await client.create(
          resources.persistentVolumeClaims,
          named('probe-2', { accessModes: RWX }),
          {
            dryRun: true,
          },
        );
        return classOf(dry) === 'premium-rwx'
          ? { done: true, value: dry }
          : { done: false, saw: String(classOf(dry)) };
      },
      { description: 'the new namespace label to reach the cache', timeoutMs: 30_000 },
    );
    expect(originalOf(relabelled)).toBe('vsphere-csi');
    await client.patch(resources.namespaces, 'team-a', { metadata: { labels: { storage: null } } });
  });

  it('warns kubectl users when the target class does not exist, until it is created', async () => {
    const manifest = (name: string) =>
      JSON.stringify(named(name, { accessModes: RWX, storageClassName: 'legacy-nfs' }));
    const kubeconfig = env?.kubeconfigPath ?? '';
    const first = await kubectl(
      kubectlBinary,
      kubeconfig,
      ['create', '-o', 'json', '-f', '-'],
      manifest('legacy-0'),
    );
    expect(first.code).toBe(0);
    expect(first.stderr).toContain(
      'Warning: pvc-rewriter: StorageClass nfs-v2 (pvcRewriter.rules[1]) does not exist; the claim stays Pending until it does',
    );
    expect(classOf(JSON.parse(first.stdout) as Claim)).toBe('nfs-v2');

    await client.create(resources.storageClasses, storageClass('nfs-v2'));
    const later = await waitFor(
      async () => {
        const run = await kubectl(
          kubectlBinary,
          kubeconfig,
          ['create', '--dry-run=server', '-f', '-'],
          manifest('legacy-1'),
        );
        return run.stderr === '' ? { done: true, value: run } : { done: false, saw: run.stderr };
      },
      { description: 'the new StorageClass to reach the cache', timeoutMs: 30_000 },
    );
    expect(later.code).toBe(0);
  });
});
