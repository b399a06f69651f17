// The rewriter behind a real kube-apiserver: a bare claim, a StatefulSet's volumeClaimTemplates
// claim and a generic ephemeral volume's claim (both made by kube-controller-manager) land on the
// target class; RWO, ROX, "" and pre-bound claims do not; a missing target class is reported to
// kubectl; namespace labels and new StorageClasses are picked up from the watched caches. On the
// package's shared control plane, in namespaces of its own.
import type { V1Pod, V1StatefulSet } from '@kubernetes/client-node';
import type { Plain } from '@kfx/admission-core';
import {
  isNotFound,
  resources,
  type KubeClient,
  type KubeObject,
  type ResourceRef,
} from '@kfx/kube-runtime/client';
import { waitFor } from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parsePvcRewriterConfig } from './config.js';
import { ORIGINAL_CLASS_ANNOTATION, type Claim } from './rewrite.js';
import { startBehindApiserver, type RewriterBehindApiserver } from './testing/behind-apiserver.js';
import { claim, storageClass } from './testing/claims.js';

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

let served: RewriterBehindApiserver | undefined;
let client: KubeClient;
/** The file's namespace, and one labelled storage: premium. */
let ns = '';
let premiumNs = '';

function named(name: string, spec: Partial<NonNullable<Claim['spec']>>, namespace = ns): Claim {
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
  served = await startBehindApiserver({
    plane: inject('kfxControlPlane'),
    label: 'pvc-rewriter',
    config,
    // nfs-v2 is created by a test, and deleted in afterAll.
    storageClasses: [
      storageClass('vsphere-csi', true),
      storageClass('nfs-client'),
      storageClass('premium-rwx'),
    ],
    async setUp(admin, env) {
      premiumNs = await env.createNamespace('team-premium');
      await admin.patch(resources.namespaces, premiumNs, {
        metadata: { labels: { storage: 'premium' } },
      });
    },
    probe: {
      claim: (namespace) => named('probe', { accessModes: RWX }, namespace),
      storageClassName: 'nfs-client',
    },
  });
  ns = served.env.namespace;
  client = served.client;
  expect(served.readyBeforeStart).toBe(false); // not synced before start()
});

afterAll(async () => {
  await client.delete(resources.storageClasses, 'nfs-v2').catch((error: unknown) => {
    if (!isNotFound(error)) throw error;
  });
  await served?.stop();
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
      metadata: { name: 'kale', namespace: ns },
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
    const made = await claimAppears(ns, 'data-kale-0');
    expect(classOf(made)).toBe('nfs-client');
    expect(originalOf(made)).toBe('vsphere-csi');
  });

  it("moves a generic ephemeral volume's claim, created by kube-controller-manager", async () => {
    const pod: Plain<V1Pod> = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'pipeline-step', namespace: ns },
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
    const made = await claimAppears(ns, 'pipeline-step-scratch');
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
    expect(classOf(await create(named('premium', { accessModes: RWX }, premiumNs)))).toBe(
      'premium-rwx',
    );
    await client.patch(resources.namespaces, ns, {
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
    await client.patch(resources.namespaces, ns, { metadata: { labels: { storage: null } } });
  });

  it('warns kubectl users when the target class does not exist, until it is created', async () => {
    const manifest = (name: string) =>
      JSON.stringify(named(name, { accessModes: RWX, storageClassName: 'legacy-nfs' }));
    const kubectl = (args: string[], stdin: string) =>
      served ? served.kubectl(args, stdin) : Promise.reject(new Error('not started'));
    const first = await kubectl(['create', '-o', 'json', '-f', '-'], manifest('legacy-0'));
    expect(first.code).toBe(0);
    expect(first.stderr).toContain(
      'Warning: pvc-rewriter: StorageClass nfs-v2 (pvcRewriter.rules[1]) does not exist; the claim stays Pending until it does',
    );
    expect(classOf(JSON.parse(first.stdout) as Claim)).toBe('nfs-v2');

    await client.create(resources.storageClasses, storageClass('nfs-v2'));
    const later = await waitFor(
      async () => {
        const run = await kubectl(['create', '--dry-run=server', '-f', '-'], manifest('legacy-1'));
        return run.stderr === '' ? { done: true, value: run } : { done: false, saw: run.stderr };
      },
      { description: 'the new StorageClass to reach the cache', timeoutMs: 30_000 },
    );
    expect(later.code).toBe(0);
  });
});
