// getOrUndefined against a real kube-apiserver: an absent object is undefined, a present one is
// returned, and any other failure (here a refused credential) is still thrown. On the package's
// shared control plane, in a namespace of its own.
import { KubeConfig } from '@kubernetes/client-node';
import { useSharedControlPlane } from '@kfx/testenv';
import { pino } from 'pino';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { KubeClient } from './client.js';
import { isUnauthorized } from './errors.js';
import { getOrUndefined } from './get-or-undefined.js';
import { resources, type KubeObject } from './resources.js';

const logger = pino({ level: 'silent' });
const env = await useSharedControlPlane(inject('kfxControlPlane'), 'get-or-undefined');
const namespace = env.namespace;
let client: KubeClient;

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

beforeAll(() => {
  client = KubeClient.fromKubeConfig(env.kubeConfig, { logger });
});

describe('getOrUndefined', () => {
  it('answers undefined for an object that does not exist, and the object once it does', async () => {
    expect(
      await getOrUndefined<ConfigMap>(client, resources.configMaps, 'settings', { namespace }),
    ).toBeUndefined();
    await client.create(resources.configMaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace },
      data: { mode: 'strict' },
    });
    const found = await getOrUndefined<ConfigMap>(client, resources.configMaps, 'settings', {
      namespace,
    });
    expect(found?.data).toEqual({ mode: 'strict' });
  });

  it('throws any other failure instead of calling it absent', async () => {
    const cluster = env.kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('the shared control plane has no current cluster');
    const stranger = new KubeConfig();
    stranger.loadFromOptions({
      clusters: [cluster],
      users: [{ name: 'stranger', token: 'not-a-token' }],
      contexts: [{ name: 'stranger', cluster: cluster.name, user: 'stranger' }],
      currentContext: 'stranger',
    });
    const refused = KubeClient.fromKubeConfig(stranger, { logger });
    const error: unknown = await getOrUndefined(refused, resources.configMaps, 'settings', {
      namespace,
    }).catch((caught: unknown) => caught);
    expect(isUnauthorized(error)).toBe(true);
  });
});
