import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubeClient } from '../client/client.js';
import { enqueueFrom, ownerKeys } from './enqueue.js';
import { createInformer } from '../informer/informer.js';
import { resources, type KubeObject } from '../client/resources.js';
import { json, startFakeApi, type FakeApi } from '../testing/fake-api.js';
import { WorkQueue } from './work-queue.js';

const profileOwner = { apiVersion: 'kubeflow.org/v1', kind: 'Profile', name: 'team-a', uid: 'p1' };
const quota = (name: string, owners: object[]): KubeObject =>
  ({
    kind: 'ResourceQuota',
    metadata: { name, namespace: 'team-a', resourceVersion: '1', ownerReferences: owners },
  }) as KubeObject;

describe('ownerKeys', () => {
  it('maps an object to the keys of its owners of one kind', () => {
    const keys = ownerKeys(resources.profiles);
    expect(
      keys(
        quota('q', [profileOwner, { apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: 'c1' }]),
      ),
    ).toEqual(['team-a']);
    expect(keys(quota('q', [{ ...profileOwner, apiVersion: 'other.org/v1' }]))).toEqual([]);
    expect(
      ownerKeys(resources.configMaps)(
        quota('q', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: 'c1' }]),
      ),
    ).toEqual(['team-a/c']);
  });
});

describe('enqueueFrom', () => {
  let api: FakeApi;
  beforeEach(async () => {
    api = await startFakeApi();
    api.handle((_req, res, url) => {
      if (url.searchParams.get('watch') === '1') {
        res.writeHead(200).flushHeaders();
        return;
      }
      json(res, 200, {
        kind: 'ResourceQuotaList',
        apiVersion: 'v1',
        metadata: { resourceVersion: '5' },
        items: [quota('quotas', [profileOwner]), quota('orphan', [])],
      });
    });
  });
  afterEach(async () => {
    await api.close();
  });

  it('enqueues object keys, or owner keys, until unsubscribed', async () => {
    const logger = pino({ level: 'silent' });
    const client = KubeClient.fromKubeConfig(api.kubeConfig, { logger });
    const informer = createInformer(client, resources.resourceQuotas, { logger });
    const own = new WorkQueue({ name: 'own', logger });
    const owners = new WorkQueue({ name: 'owners', logger });
    enqueueFrom(informer, own);
    const off = enqueueFrom(informer, owners, ownerKeys(resources.profiles));
    informer.start();
    await informer.waitForSync();
    expect(own.length).toBe(2);
    expect(owners.length).toBe(1);
    off();
    const seen: string[] = [];
    const running = owners.run((key) => {
      seen.push(key);
    });
    await owners.shutdown();
    await running;
    expect(seen).toEqual(['team-a']);
    await informer.stop();
    client.close();
  });
});
