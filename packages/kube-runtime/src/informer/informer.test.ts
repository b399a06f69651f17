// Informer behaviour under faults a real apiserver cannot produce on demand: a watch that goes
// silent, a 429 on the list, a 410 at a chosen moment. The happy path, restarts and a real 410
// are in informer.integration.test.ts against a real control plane.
import type { ServerResponse } from 'node:http';
import { until } from '@kfx/testenv';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubeClient } from '../client/client.js';
import { createInformer } from './informer.js';
import { resources, type KubeObject } from '../client/resources.js';
import { json, recordingLogger, startFakeApi, status, type FakeApi } from '../testing/fake-api.js';

const silent = pino({ level: 'silent' });
let api: FakeApi;
let watches: ServerResponse[];
let items: KubeObject[];
let listResponses: ((res: ServerResponse) => boolean)[];

const cm = (name: string, resourceVersion: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'n', resourceVersion },
});

function send(type: string, object: object): void {
  for (const watch of watches) watch.write(`${JSON.stringify({ type, object })}\n`);
}

beforeEach(async () => {
  api = await startFakeApi();
  watches = [];
  items = [cm('a', '10'), cm('b', '11')];
  listResponses = [];
  api.handle((_req, res, url) => {
    if (url.searchParams.get('watch') === '1') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.flushHeaders();
      watches.push(res);
      return;
    }
    const scripted = listResponses.shift();
    if (scripted?.(res)) return;
    json(res, 200, {
      kind: 'ConfigMapList',
      apiVersion: 'v1',
      metadata: { resourceVersion: '20' },
      items,
    });
  });
});
afterEach(async () => {
  await api.close();
});

describe('informer', () => {
  it('lists, then watches from the list resourceVersion with bookmarks and a random timeout', async () => {
    const client = KubeClient.fromKubeConfig(api.kubeConfig, { logger: silent });
    const informer = createInformer(client, resources.configMaps, {
      namespace: 'n',
      labelSelector: 'app=x',
    });
    informer.start();
    await informer.waitForSync();
    await until(() => watches.length === 1, 'a watch');
    const watch = new URL(
      api.requests.find((r) => r.includes('watch=1'))?.split(' ')[1] ?? '',
      'http://x',
    );
    expect(watch.pathname).toBe('/api/v1/namespaces/n/configmaps');
    expect(watch.searchParams.get('resourceVersion')).toBe('20');
    expect(watch.searchParams.get('allowWatchBookmarks')).toBe('true');
    expect(watch.searchParams.get('labelSelector')).toBe('app=x');
    const timeout = Number(watch.searchParams.get('timeoutSeconds'));
    expect(timeout).toBeGreaterThanOrEqual(300);
    expect(timeout).toBeLessThan(600);
    // The server holds the watch before the client has read its headers: wait for the client.
    await until(() => informer.isHealthy(), 'the informer to see the watch open');
    await informer.stop();
    client.close();
  });

  it('restarts a watch that brought nothing for the inactivity timeout, from where it was', async () => {
    const client = KubeClient.fromKubeConfig(api.kubeConfig, { logger: silent });
    const informer = createInformer(client, resources.configMaps, {
      namespace: 'n',
      inactivityTimeoutMs: 200,
    });
    informer.start();
    await until(() => watches.length === 1, 'the first watch');
    send('BOOKMARK', { kind: 'ConfigMap', metadata: { resourceVersion: '25' } });
    await until(() => watches.length === 2, 'the watch to be restarted');
    const second = api.requests.filter((r) => r.includes('watch=1'))[1] ?? '';
    expect(second).toContain('resourceVersion=25');
    expect(api.requests.filter((r) => !r.includes('watch=1'))).toHaveLength(1);
    expect(await client.registry.metrics()).toMatch(
      /kfx_informer_watch_restarts_total\{informer="configmaps\/n",reason="inactive"\} [1-9]/,
    );
    await informer.stop();
    client.close();
  });

  it('waits as long as a 429 on the list asks before listing again', async () => {
    listResponses.push((res) => {
      json(res, 429, status(429, 'TooManyRequests', 'storm'), { 'Retry-After': '1' });
      return true;
    });
    const { logger, records } = recordingLogger();
    // No client retries: the informer's own loop handles the 429.
    const client = KubeClient.fromKubeConfig(api.kubeConfig, { retry: { retries: 0 }, logger });
    const informer = createInformer(client, resources.configMaps, { namespace: 'n' });
    informer.start();
    await informer.waitForSync();
    const failure = records.find((r) => r.msg === 'list/watch failed, retrying');
    expect(failure?.waitMs).toBe(1000);
    expect(informer.store.size).toBe(2);
    await informer.stop();
    client.close();
  });

  it('lists again on 410 Gone and reports what changed meanwhile', async () => {
    const client = KubeClient.fromKubeConfig(api.kubeConfig, { logger: silent });
    const informer = createInformer(client, resources.configMaps, { namespace: 'n' });
    const seen: string[] = [];
    informer.on('add', (o) => seen.push(`add ${o.metadata?.name}`));
    informer.on('update', (o, old) =>
      seen.push(
        `update ${o.metadata?.name} ${old.metadata?.resourceVersion}→${o.metadata?.resourceVersion}`,
      ),
    );
    informer.on('delete', (o) => seen.push(`delete ${o.metadata?.name}`));
    informer.start();
    await informer.waitForSync();
    await until(() => watches.length === 1, 'a watch');
    items = [cm('b', '31'), cm('c', '32')];
    send('ERROR', status(410, 'Expired', 'too old resource version: 20 (30)'));
    await until(() => seen.length === 5, 'the relist events');
    expect(seen).toEqual(['add a', 'add b', 'update b 11→31', 'add c', 'delete a']);
    expect(informer.store.keys().sort()).toEqual(['n/b', 'n/c']);
    await informer.stop();
    client.close();
  });

  it('keeps going when a handler throws, and replays the cache to late handlers', async () => {
    const { logger, records } = recordingLogger();
    const client = KubeClient.fromKubeConfig(api.kubeConfig, { logger });
    const informer = createInformer(client, resources.configMaps, { namespace: 'n' });
    informer.on('add', () => {
      throw new Error('bad handler');
    });
    const added: string[] = [];
    informer.on('add', (o) => added.push(o.metadata?.name ?? ''));
    informer.start();
    await informer.waitForSync();
    expect(added).toEqual(['a', 'b']);
    expect(records.filter((r) => r.msg === 'informer event handler threw')).toHaveLength(2);
    const late: string[] = [];
    informer.on('add', (o) => late.push(o.metadata?.name ?? ''));
    expect(late).toEqual(['a', 'b']);
    await until(() => watches.length === 1, 'a watch');
    send('ADDED', cm('c', '40'));
    await until(() => added.length === 3, 'the watched add');
    expect(late).toEqual(['a', 'b', 'c']);
    await informer.stop();
    client.close();
  });

  it('re-emits every cached object on resync without asking the API', async () => {
    const client = KubeClient.fromKubeConfig(api.kubeConfig, { logger: silent });
    const informer = createInformer(client, resources.configMaps, { namespace: 'n', resyncMs: 30 });
    const resynced: string[] = [];
    informer.on('update', (o, old) => {
      if (o === old) resynced.push(o.metadata?.name ?? '');
    });
    informer.start();
    await informer.waitForSync();
    const requestsAfterSync = api.requests.length;
    await until(() => resynced.length >= 4, 'two resyncs');
    expect(new Set(resynced)).toEqual(new Set(['a', 'b']));
    expect(api.requests.length).toBeLessThanOrEqual(requestsAfterSync + 1);
    await informer.stop();
    client.close();
  });

  it('rejects waitForSync when stopped first, and is not ready before it syncs', async () => {
    api.handle(() => {
      // The list never answers.
    });
    const client = KubeClient.fromKubeConfig(api.kubeConfig, { logger: silent });
    const informer = createInformer(client, resources.configMaps);
    informer.start();
    const waiting = informer.waitForSync();
    expect(informer.hasSynced()).toBe(false);
    await informer.stop();
    await expect(waiting).rejects.toThrow('informer configmaps stopped before it synced');
    client.close();
  });
});
