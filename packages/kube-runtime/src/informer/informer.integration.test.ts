// The informer against a real kube-apiserver: list + watch, indexes, selectors, readiness, and
// an apiserver restart: the resourceVersion it held is then too old (410), so it lists again and
// reports every change made after the restart, deletions included (no lost update).
// It owns its control plane: it restarts the API server.
import { startControlPlane, waitFor, type ControlPlane } from '@kfx/testenv';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from '../client/client.js';
import { createInformer, type Informer } from './informer.js';
import { informersReady } from './readiness.js';
import { resources, type KubeObject } from '../client/resources.js';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

const logger = pino({ level: process.env.DEBUG_KR ? 'debug' : 'silent' });
let env: ControlPlane;
let client: KubeClient;

beforeAll(async () => {
  env = await startControlPlane();
  client = KubeClient.fromKubeConfig(env.kubeConfig, { logger });
  for (const name of ['inf-a', 'inf-b'])
    await client.create(resources.namespaces, { metadata: { name } });
});
afterAll(async () => {
  client.close();
  await env.stop();
});

const configMap = (namespace: string, name: string, extra: Partial<ConfigMap> = {}): ConfigMap => ({
  metadata: { namespace, name, ...extra.metadata },
  data: extra.data ?? {},
});

async function until<T>(
  description: string,
  check: () => T | undefined | false,
  saw: () => string = () => 'not yet',
): Promise<T> {
  return waitFor(
    () => {
      const value = check();
      return Promise.resolve(
        value === undefined || value === false
          ? { done: false as const, saw: saw() }
          : { done: true as const, value },
      );
    },
    { description, timeoutMs: 60_000, intervalMs: 20 },
  );
}

function record(informer: Informer<ConfigMap>): string[] {
  const events: string[] = [];
  const id = (o: ConfigMap) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
  informer.on('add', (o) => events.push(`add ${id(o)}`));
  informer.on('update', (o, old) => {
    if (o !== old) events.push(`update ${id(o)} ${JSON.stringify(o.data)}`);
  });
  informer.on('delete', (o) => events.push(`delete ${id(o)}`));
  return events;
}

describe('informer on a real apiserver', () => {
  it('syncs what exists, then follows adds, updates and deletes, with namespace and owner indexes', async () => {
    const profile = await client.create(resources.profiles, {
      apiVersion: 'kubeflow.org/v1',
      kind: 'Profile',
      metadata: { name: 'inf-owner' },
      spec: { owner: { kind: 'User', name: 'alice@example.com' } },
    });
    const owner = {
      apiVersion: 'kubeflow.org/v1',
      kind: 'Profile',
      name: 'inf-owner',
      uid: profile.metadata.uid ?? '',
    };
    await client.create(
      resources.configMaps,
      configMap('inf-a', 'existing', { metadata: { ownerReferences: [owner] } }),
    );
    const informer = createInformer<ConfigMap>(client, resources.configMaps, {
      labelSelector: '!skip',
      logger,
    });
    const events = record(informer);
    informer.start();
    await informer.waitForSync();
    expect(informer.store.get('inf-a/existing')).toBeDefined();
    expect(events).toContain('add inf-a/existing');
    await until(
      'readiness',
      () => informersReady([informer]).ok,
      () => informersReady([informer]).reasons.join(),
    );

    await client.create(
      resources.configMaps,
      configMap('inf-b', 'new', { metadata: { ownerReferences: [owner] } }),
    );
    await client.create(
      resources.configMaps,
      configMap('inf-b', 'ignored', { metadata: { labels: { skip: 'yes' } } }),
    );
    await client.patch(resources.configMaps, 'new', { data: { k: 'v' } }, { namespace: 'inf-b' });
    await client.delete(resources.configMaps, 'existing', { namespace: 'inf-a' });
    await until('the delete', () => events.includes('delete inf-a/existing'));
    expect(events.filter((e) => e.includes('new') || e.includes('existing'))).toEqual([
      'add inf-a/existing',
      'add inf-b/new',
      'update inf-b/new {"k":"v"}',
      'delete inf-a/existing',
    ]);
    expect(informer.store.get('inf-b/ignored')).toBeUndefined();
    expect(informer.store.byIndex('owner', owner.uid).map((o) => o.metadata?.name)).toEqual([
      'new',
    ]);
    expect(informer.store.byIndex('namespace', 'inf-b').map((o) => o.metadata?.name)).toContain(
      'new',
    );
    await informer.stop();
    expect(informer.isHealthy()).toBe(false);
  });

  it('loses no update across an apiserver restart: it lists again after 410 and sees every change', async () => {
    for (const name of ['keep', 'change', 'remove']) {
      await client.create(resources.configMaps, configMap('inf-a', name, { data: { v: '1' } }));
    }
    const informer = createInformer<ConfigMap>(client, resources.configMaps, {
      namespace: 'inf-a',
      logger,
      backoff: { baseMs: 100, maxMs: 1000 },
    });
    const events = record(informer);
    informer.start();
    await informer.waitForSync();
    // A write elsewhere moves the cluster's resourceVersion past the one the informer holds.
    await client.create(resources.configMaps, configMap('inf-b', 'elsewhere'));

    await env.restartApiServer();
    // Changes right after the restart, while the informer may still be reconnecting.
    await client.patch(
      resources.configMaps,
      'change',
      { data: { v: '2' } },
      { namespace: 'inf-a' },
    );
    await client.delete(resources.configMaps, 'remove', { namespace: 'inf-a' });
    await client.create(resources.configMaps, configMap('inf-a', 'added', { data: { v: '1' } }));

    const cached = () =>
      informer.store
        .list()
        .map((o) => `${o.metadata?.name ?? ''}=${o.data?.v ?? ''}`)
        .sort()
        .join(' ');
    await until(
      'the cache to match the cluster',
      () => cached() === 'added=1 change=2 keep=1',
      () => `${cached()} ${JSON.stringify(informer.status())}`,
    );
    expect(events).toEqual(
      expect.arrayContaining([
        'update inf-a/change {"v":"2"}',
        'delete inf-a/remove',
        'add inf-a/added',
      ]),
    );
    const metrics = await client.registry.getSingleMetricAsString(
      'kfx_informer_watch_restarts_total',
    );
    expect(metrics).toMatch(
      /kfx_informer_watch_restarts_total\{informer="configmaps\/inf-a",reason="gone"\} [1-9]/,
    );
    await until('the informer to be healthy', () => informer.isHealthy());

    // And the watch goes on after the relist.
    await client.patch(resources.configMaps, 'keep', { data: { v: '3' } }, { namespace: 'inf-a' });
    await until(
      'the change after the relist',
      () => informer.store.get('inf-a/keep')?.data?.v === '3',
    );
    await informer.stop();
  });
});

describe('an informer without the rights to list', () => {
  it('tells whoever waits for its first sync, naming the request, and syncs once granted', async () => {
    const user = env.userKubeconfig('no-rights');
    const denied = KubeClient.fromKubeConfig(user.kubeConfig, { logger });
    const informer = createInformer(denied, resources.nodes, {
      logger,
      backoff: { baseMs: 100, maxMs: 500, jitter: 0 },
    });
    informer.start();
    try {
      await expect(informer.waitForSync()).rejects.toThrow(
        /informer nodes cannot sync: .*403.*cannot list resource "nodes"/,
      );
      // Permissions are granted later: the informer has kept trying, and now syncs.
      await client.create(resources.clusterRoles, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'read-nodes' },
        rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['list', 'watch'] }],
      } as KubeObject);
      await client.create(resources.clusterRoleBindings, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'read-nodes' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'read-nodes' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'no-rights' }],
      } as KubeObject);
      await informer.waitForSync();
      expect(informer.hasSynced()).toBe(true);
    } finally {
      await informer.stop();
      denied.close();
    }
  });
});
