// applyObject against a real kube-apiserver: it creates, then leaves a steady object alone (no
// write, proven by counting requests and by the unchanged resourceVersion), repairs drift made
// by someone else, and removes a field dropped from the desired state; from a metadata-only cache
// (a Secret's data never sent) it reads each version once. The objects are the kinds
// kfx's profile controller applies, so the skip is proven on what the server really stores. On
// the package's shared control plane, in a namespace of its own (the Profile is named after it).
import { readFileSync } from 'node:fs';
import { CRDS, toObjects, useSharedControlPlane, waitFor } from '@kfx/testenv';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { appliedSkeleton, type AppliedSkeleton } from './applied-digest.js';
import { applyObject } from './apply.js';
import { KubeClient } from '../client/client.js';
import { createInformer } from '../informer/informer.js';
import { resources, type KubeObject, type ResourceRef } from '../client/resources.js';
import type { Informer } from '../informer/informer.js';

const logger = pino({ level: 'silent' });
const fieldManager = 'kfx-controller';
const env = await useSharedControlPlane(inject('kfxControlPlane'), 'apply');
const ns = env.namespace;
let client: KubeClient;

beforeAll(async () => {
  client = KubeClient.fromKubeConfig(env.kubeConfig, { logger });
  await reinstallProfileCrd();
});

/**
 * testenv installs CRDs through client-node's object serializer, which drops the
 * `x-kubernetes-preserve-unknown-fields` markers, so the server prunes `spec.resourceQuotaSpec`
 * of every Profile. Applying the same file as plain JSON keeps them.
 */
async function reinstallProfileCrd(): Promise<void> {
  for (const crd of toObjects(readFileSync(CRDS.kubeflowProfile, 'utf8'))) {
    await client.apply(resources.customResourceDefinitions, crd, {
      fieldManager: 'kfx-testenv',
      force: true,
    });
  }
  await waitFor(
    async () => {
      const probe = await client.apply<
        KubeObject & { spec?: { owner?: object; resourceQuotaSpec?: object } }
      >(
        resources.profiles,
        {
          apiVersion: 'kubeflow.org/v1',
          kind: 'Profile',
          metadata: { name: 'crd-probe' },
          spec: { owner: { kind: 'User', name: 'x' }, resourceQuotaSpec: { hard: { cpu: '1' } } },
        },
        { fieldManager: 'probe', dryRun: true },
      );
      return probe.spec?.resourceQuotaSpec && 'hard' in probe.spec.resourceQuotaSpec
        ? { done: true, value: undefined }
        : { done: false, saw: JSON.stringify(probe.spec) };
    },
    { description: 'the Profile CRD to keep resourceQuotaSpec' },
  );
}
afterAll(async () => {
  await client.delete(resources.profiles, ns).catch(() => undefined);
  client.close();
  await env.release();
});

async function requests(method?: string): Promise<number> {
  const text = await client.registry.getSingleMetricAsString('kfx_kube_api_requests_total');
  return text
    .split('\n')
    .filter(
      (line) =>
        line.startsWith('kfx_kube_api_requests_total{') &&
        (!method || line.includes(`method="${method}"`)),
    )
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

const quota = (
  hard: Record<string, string | number>,
  labels: Record<string, string> = { 'app.kubernetes.io/managed-by': 'kfx' },
) => ({
  apiVersion: 'v1',
  kind: 'ResourceQuota',
  metadata: { name: 'quotas', namespace: ns, labels },
  spec: { hard },
});

const policyObjects: KubeObject[] = [
  quota({
    cpu: '70',
    memory: '368G',
    'requests.storage': '100T',
    'requests.nvidia.com/gpu': 2,
    pods: 100,
    'services.nodeports': 0,
  }),
  {
    apiVersion: 'v1',
    kind: 'LimitRange',
    metadata: { name: 'default-container-limits', namespace: ns },
    spec: {
      limits: [
        {
          type: 'Container',
          default: { cpu: '250m', memory: '256M' },
          defaultRequest: { cpu: '250m', memory: '256M' },
        },
      ],
    },
  } as KubeObject,
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'profile-support', namespace: ns },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'support' }],
  } as KubeObject,
  {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'allow-same-namespace', namespace: ns },
    spec: {
      podSelector: {},
      policyTypes: ['Ingress', 'Egress'],
      ingress: [{ from: [{ podSelector: {} }] }],
      egress: [
        {
          to: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['10.0.0.0/8'] } }],
          ports: [{ port: 443 }],
        },
      ],
    },
  } as KubeObject,
  {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'proxy-env', namespace: ns },
    data: { HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: '.svc,10.0.0.0/8' },
  } as KubeObject,
  {
    apiVersion: 'kubeflow.org/v1',
    kind: 'Profile',
    metadata: { name: ns },
    spec: {
      owner: { kind: 'User', name: 'alice@example.com' },
      resourceQuotaSpec: { hard: { cpu: '2000m' } },
    },
  } as KubeObject,
];

describe('applyObject on a real apiserver', () => {
  it('creates each kind once, then makes no write while nothing changes', async () => {
    const versions = new Map<string, string | undefined>();
    for (const object of policyObjects) {
      const first = await applyObject(client, object, { fieldManager, logger });
      expect(first.changed).toBe(true);
      versions.set(
        `${object.kind ?? ''}/${object.metadata?.name ?? ''}`,
        first.object.metadata?.resourceVersion,
      );
    }
    const writesBefore = await requests('PATCH');
    for (let round = 0; round < 5; round++) {
      for (const object of policyObjects) {
        const again = await applyObject(client, object, { fieldManager, logger });
        expect(again.changed, `${object.kind ?? ''} should be skipped`).toBe(false);
      }
    }
    expect(await requests('PATCH')).toBe(writesBefore);
    for (const object of policyObjects) {
      const key = `${object.kind ?? ''}/${object.metadata?.name ?? ''}`;
      const ref = await client.resolve(object.apiVersion ?? '', object.kind ?? '');
      const live = await client.get(ref, object.metadata?.name ?? '', {
        namespace: ref.namespaced ? ns : undefined,
      });
      expect(live.metadata?.resourceVersion, key).toBe(versions.get(key));
    }
  });

  it('compares quantities by value: the server stores 1000m as 1, yet nothing is written', async () => {
    const desired = quota({ cpu: '1000m', memory: '1024Mi', pods: 10 });
    await applyObject(client, desired, { fieldManager, logger });
    const live = await client.get<KubeObject & { spec: { hard: Record<string, string> } }>(
      resources.resourceQuotas,
      'quotas',
      { namespace: ns },
    );
    expect(live.spec.hard).toEqual({ cpu: '1', memory: '1Gi', pods: '10' });
    const writes = await requests('PATCH');
    expect((await applyObject(client, desired, { fieldManager, logger })).changed).toBe(false);
    expect(await requests('PATCH')).toBe(writes);
  });

  it('makes no request at all when reading from an informer cache', async () => {
    const informer = createInformer(client, resources.resourceQuotas, {
      namespace: ns,
      logger,
    });
    informer.start();
    await informer.waitForSync();
    const desired = quota({ cpu: '1000m', memory: '1024Mi', pods: 10 });
    const before = await requests();
    for (let i = 0; i < 100; i++) {
      const result = await applyObject(client, desired, {
        fieldManager,
        cache: informer.store,
        ref: resources.resourceQuotas,
        logger,
      });
      expect(result.changed).toBe(false);
    }
    expect(await requests()).toBe(before);
    await informer.stop();
  });

  it('from a cache of skeletons: no request while steady, drift repaired, no content held', async () => {
    const caches = new Map<string, { ref: ResourceRef; informer: Informer<KubeObject> }>();
    for (const object of policyObjects) {
      const ref = await client.resolve(object.apiVersion ?? '', object.kind ?? '');
      const informer = createInformer<KubeObject>(client, ref, {
        namespace: ref.namespaced ? ns : undefined,
        fieldSelector: `metadata.name=${object.metadata?.name ?? ''}`,
        transform: appliedSkeleton(fieldManager, { labels: ['app.kubernetes.io/managed-by'] }),
        logger,
      });
      informer.start();
      await informer.waitForSync();
      caches.set(object.kind ?? '', { ref, informer });
    }
    const cacheOf = (object: KubeObject) => {
      const cache = caches.get(object.kind ?? '');
      if (!cache) throw new Error(`no cache for ${object.kind ?? ''}`);
      return cache;
    };
    const apply = (object: KubeObject) =>
      applyObject(client, object, {
        fieldManager,
        cache: cacheOf(object).informer.store,
        ref: cacheOf(object).ref,
        logger,
      });
    const cachedVersion = (object: KubeObject) =>
      cacheOf(object).informer.store.get(
        object.metadata?.namespace
          ? `${ns}/${object.metadata.name ?? ''}`
          : (object.metadata?.name ?? ''),
      )?.metadata?.resourceVersion;
    const settled = async (object: KubeObject, version: string | undefined) =>
      waitFor(
        () => {
          const seen = cachedVersion(object);
          return Promise.resolve(
            seen === version
              ? { done: true as const, value: undefined }
              : { done: false as const, saw: `resourceVersion ${seen ?? 'none'}` },
          );
        },
        { description: `the cache to hold ${object.kind ?? ''} at ${version ?? ''}` },
      );
    // Bring every object to the desired state, whatever the earlier tests left.
    for (const object of policyObjects) {
      const result = await apply(object);
      await settled(object, result.object.metadata?.resourceVersion);
    }
    // A first round may read an object whose digest cannot tell (server defaults in a list)...
    for (const object of policyObjects) expect((await apply(object)).changed).toBe(false);
    // ...after which nothing is asked of the server at all.
    const before = await requests();
    for (let round = 0; round < 5; round++) {
      for (const object of policyObjects) expect((await apply(object)).changed).toBe(false);
    }
    expect(await requests()).toBe(before);

    const [configMap] = policyObjects.filter((o) => o.kind === 'ConfigMap');
    if (!configMap) throw new Error('no ConfigMap among the policy objects');
    const edited = await client.patch(
      resources.configMaps,
      'proxy-env',
      { data: { HTTPS_PROXY: 'http://elsewhere:3128' } },
      { namespace: ns, fieldManager: 'kubectl-edit' },
    );
    await settled(configMap, edited.metadata?.resourceVersion);
    const repaired = await apply(configMap);
    expect(repaired.changed).toBe(true);
    expect(repaired.reason).toBe(
      'data.HTTPS_PROXY: want "http://proxy:3128", have "http://elsewhere:3128"',
    );

    for (const { informer } of caches.values()) {
      for (const entry of informer.store.list()) {
        expect(Object.keys(entry).sort()).toEqual([
          'apiVersion',
          'appliedDigest',
          'kind',
          'metadata',
        ]);
        expect((entry as AppliedSkeleton).appliedDigest).toMatch(/^[\w-]{43}$/);
      }
      await informer.stop();
    }
  });

  it('from a metadata-only cache: no content read into it, one read per version, changes written', async () => {
    const secretOf = (password: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'copied',
        namespace: ns,
        labels: { 'app.kubernetes.io/managed-by': 'kfx' },
      },
      ...{ type: 'Opaque', data: { password: Buffer.from(password).toString('base64') } },
    });
    const skeleton = appliedSkeleton(fieldManager, {
      labels: ['app.kubernetes.io/managed-by'],
      metadataOnly: true,
    });
    /** Whether any object the informer handed over carried content. */
    let sawContent = false;
    const informer = createInformer<KubeObject>(client, resources.secrets, {
      namespace: ns,
      labelSelector: 'app.kubernetes.io/managed-by=kfx',
      metadataOnly: true,
      transform: (object) => {
        sawContent ||= 'data' in object || 'type' in object;
        return skeleton(object);
      },
      logger,
    });
    // A large labelled Secret of someone else's, there before the list and written during the watch.
    const blob = Buffer.alloc(512 * 1024, 1).toString('base64');
    const large = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'large', namespace: ns, labels: { 'app.kubernetes.io/managed-by': 'kfx' } },
      data: { blob },
    };
    await client.create(resources.secrets, large);
    informer.start();
    await informer.waitForSync();
    const apply = (object: KubeObject) =>
      applyObject(client, object, {
        fieldManager,
        cache: informer.store,
        ref: resources.secrets,
        logger,
      });
    const settled = (version: string | undefined) =>
      waitFor(
        () => {
          const seen = informer.store.get(`${ns}/copied`)?.metadata?.resourceVersion;
          return Promise.resolve(
            seen === version
              ? { done: true as const, value: undefined }
              : { done: false as const, saw: `resourceVersion ${seen ?? 'none'}` },
          );
        },
        { description: `the cache to hold Secret copied at ${version ?? ''}` },
      );
    try {
      const created = await apply(secretOf('first'));
      expect(created.changed).toBe(true);
      await settled(created.object.metadata?.resourceVersion);
      await client.patch(
        resources.secrets,
        'large',
        { data: { more: blob } },
        { namespace: ns, fieldManager: 'someone' },
      );
      // The first round reads the object (the cache cannot see its data)...
      expect((await apply(secretOf('first'))).changed).toBe(false);
      // ...after which a steady object costs no request.
      const before = await requests();
      for (let round = 0; round < 5; round++) {
        expect((await apply(secretOf('first'))).changed).toBe(false);
      }
      expect(await requests()).toBe(before);
      // A new value is written (the source of a copy changed)...
      const second = await apply(secretOf('second'));
      expect(second.changed).toBe(true);
      await settled(second.object.metadata?.resourceVersion);
      // ...and a value someone else wrote is put back.
      const edited = await client.patch(
        resources.secrets,
        'copied',
        { data: { password: Buffer.from('tampered').toString('base64') } },
        { namespace: ns, fieldManager: 'kubectl-edit' },
      );
      await settled(edited.metadata?.resourceVersion);
      const repaired = await apply(secretOf('second'));
      expect(repaired.changed).toBe(true);
      expect(repaired.reason).toMatch(/^data\.password: /);
      await waitFor(
        () =>
          Promise.resolve(
            informer.store.get(`${ns}/large`)?.metadata?.resourceVersion !== undefined
              ? { done: true as const, value: undefined }
              : { done: false as const, saw: 'no Secret large' },
          ),
        { description: 'Secret large in the cache' },
      );
      expect(sawContent).toBe(false);
      const cached = informer.store.get(`${ns}/copied`) as AppliedSkeleton | undefined;
      expect(cached?.kind).toBe('Secret');
      expect(cached?.appliedDigest).toBeNull();
    } finally {
      await informer.stop();
      for (const name of ['copied', 'large']) {
        await client.delete(resources.secrets, name, { namespace: ns }).catch(() => undefined);
      }
    }
  });

  it('repairs drift made by another manager', async () => {
    const desired = quota({ cpu: '1000m', memory: '1024Mi', pods: 10 });
    await client.patch(
      resources.resourceQuotas,
      'quotas',
      { spec: { hard: { cpu: '64' } } },
      { namespace: ns, fieldManager: 'kubectl-edit' },
    );
    const result = await applyObject(client, desired, { fieldManager, logger });
    expect(result.changed).toBe(true);
    expect(
      (result.object as KubeObject & { spec: { hard: Record<string, string> } }).spec.hard.cpu,
    ).toBe('1');
  });

  it('writes when a field was dropped from the desired state, and the server removes it', async () => {
    await applyObject(
      client,
      quota({ cpu: '1', pods: 10 }, { 'app.kubernetes.io/managed-by': 'kfx', tier: 'gold' }),
      { fieldManager, logger },
    );
    const result = await applyObject(client, quota({ cpu: '1', pods: 10 }), {
      fieldManager,
      logger,
    });
    expect(result.changed).toBe(true);
    expect(result.object.metadata.labels).toEqual({ 'app.kubernetes.io/managed-by': 'kfx' });
    expect(
      (result.object as KubeObject & { spec: { hard: Record<string, string> } }).spec.hard,
    ).toEqual({ cpu: '1', pods: '10' });
    expect(
      (await applyObject(client, quota({ cpu: '1', pods: 10 }), { fieldManager, logger })).changed,
    ).toBe(false);
  });

  it('names the object and the field in errors', async () => {
    await expect(
      applyObject(client, quota({ cpu: 'lots' }), { fieldManager, logger }),
    ).rejects.toThrow(
      new RegExp(
        `^PATCH resourcequotas ${ns}/quotas: .*quantities must match the regular expression`,
      ),
    );
    await expect(
      applyObject(
        client,
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } },
        { fieldManager, logger },
      ),
    ).rejects.toThrow(
      'applyObject ConfigMap x: ConfigMap is namespaced but metadata.namespace is empty',
    );
    await expect(
      applyObject(client, { kind: 'ConfigMap', metadata: { name: 'x' } }, { fieldManager, logger }),
    ).rejects.toThrow('applyObject ConfigMap x: the object has no apiVersion');
  });
});

describe('an object someone else made', () => {
  it('is told as adopted, naming who wrote it, when the cache did not hold it', async () => {
    const configMap = (name: string, data: Record<string, string>): KubeObject =>
      ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: ns },
        data,
      }) as KubeObject;
    await client.create(resources.configMaps, configMap('adoptee', { a: '1' }), {
      fieldManager: 'kubectl-create',
    });
    // A cache of this manager's objects only (as kfx's label-selected ones): neither is in it.
    const cache = { get: () => undefined };
    const adopted = await applyObject(client, configMap('adoptee', { b: '2' }), {
      fieldManager,
      cache,
      logger,
    });
    expect(adopted.action).toBe('adopted');
    expect(adopted.earlierManagers).toEqual(['kubectl-create']);
    expect(adopted.reason).toBe('it existed, written by kubectl-create');
    // Again before the cache has seen that write (a resync right after): nothing to write, and
    // nothing told twice; a change then is an update of what this manager now holds.
    const again = await applyObject(client, configMap('adoptee', { b: '2' }), {
      fieldManager,
      cache,
      logger,
    });
    expect([again.changed, again.action]).toEqual([false, undefined]);
    const changed = await applyObject(client, configMap('adoptee', { b: '3' }), {
      fieldManager,
      cache,
      logger,
    });
    expect(changed.action).toBe('updated');
    const made = await applyObject(client, configMap('fresh', { b: '2' }), {
      fieldManager,
      cache,
      logger,
    });
    expect(made.action).toBe('created');
    expect(
      (await applyObject(client, configMap('fresh', { b: '2' }), { fieldManager, cache, logger }))
        .changed,
    ).toBe(false);
    // Read live (no cache): an update of what this manager made.
    const updated = await applyObject(client, configMap('fresh', { b: '3' }), {
      fieldManager,
      logger,
    });
    expect(updated.action).toBe('updated');
  });
});
