// The client's retry policy against a scripted server: 429 storms, 5xx and refused connections
// cannot be produced on demand by a real apiserver. The real one is in client.integration.test.ts.
import { KubeConfig } from '@kubernetes/client-node';
import { until } from '@kfx/testenv';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubeClient } from './client.js';
import { KubeApiError } from './errors.js';
import { resources } from './resources.js';
import { json, recordingLogger, startFakeApi, status, type FakeApi } from '../testing/fake-api.js';

const silent = pino({ level: 'silent' });
let api: FakeApi;
beforeEach(async () => {
  api = await startFakeApi();
});
afterEach(async () => {
  await api.close();
});

const retriesLogged = (records: Record<string, unknown>[]) =>
  records.filter((r) => r.msg === 'retrying').map((r) => r.waitMs);

describe('KubeClient retries', () => {
  it('rides out a 429 storm, waiting as long as Retry-After says', async () => {
    let calls = 0;
    api.handle((_req, res) => {
      calls++;
      if (calls <= 2)
        json(res, 429, status(429, 'TooManyRequests', 'slow down'), { 'Retry-After': '1' });
      else json(res, 200, { kind: 'Namespace', metadata: { name: 'default' } });
    });
    const { logger, records } = recordingLogger();
    const client = KubeClient.fromKubeConfig(api.kubeConfig, { logger });
    const ns = await client.get(resources.namespaces, 'default');
    expect(ns.metadata?.name).toBe('default');
    expect(calls).toBe(3);
    expect(retriesLogged(records)).toEqual([1000, 1000]);
    expect(await client.registry.metrics()).toContain(
      'kfx_kube_api_requests_total{method="GET",code="429"} 2',
    );
    client.close();
  });

  it('retries a write on 429 but not on 500', async () => {
    let calls = 0;
    api.handle((req, res) => {
      calls++;
      if (req.method === 'POST' && calls === 1)
        json(res, 429, status(429, 'TooManyRequests', 'x'), { 'Retry-After': '0' });
      else if (req.method === 'POST') json(res, 201, { metadata: { name: 'a', namespace: 'n' } });
      else json(res, 500, status(500, 'InternalError', 'etcd is unhappy'));
    });
    const client = KubeClient.fromKubeConfig(api.kubeConfig, {
      retry: { baseMs: 1 },
      logger: silent,
    });
    await client.create(resources.configMaps, { metadata: { name: 'a', namespace: 'n' } });
    expect(calls).toBe(2);
    calls = 0;
    await expect(
      client.patch(resources.configMaps, 'a', { data: {} }, { namespace: 'n' }),
    ).rejects.toThrow('PATCH configmaps n/a: 500 InternalError: etcd is unhappy');
    expect(calls).toBe(1);
    client.close();
  });

  it('retries reads on 5xx until the retries run out', async () => {
    api.handle((_req, res) => {
      json(res, 503, status(503, 'ServiceUnavailable', 'starting'));
    });
    const client = KubeClient.fromKubeConfig(api.kubeConfig, {
      retry: { retries: 3, baseMs: 1 },
      logger: silent,
    });
    await expect(client.list(resources.pods)).rejects.toThrow(
      'GET pods: 503 ServiceUnavailable: starting',
    );
    expect(api.requests).toHaveLength(4);
    client.close();
  });

  it('retries a write whose connection was refused (it never reached the server)', async () => {
    const closed = await startFakeApi();
    await closed.close();
    const { logger, records } = recordingLogger();
    const client = KubeClient.fromKubeConfig(closed.kubeConfig, {
      logger,
      retry: { retries: 2, baseMs: 1 },
    });
    const error = await client
      .create(resources.configMaps, { metadata: { name: 'a', namespace: 'n' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeApiError);
    expect((error as KubeApiError).code).toBe('ECONNREFUSED');
    expect((error as KubeApiError).message).toMatch(
      /^POST configmaps in n: ConnectionFailed: http:\/\/127\.0\.0\.1:\d+: connect ECONNREFUSED/,
    );
    expect(retriesLogged(records)).toHaveLength(2);
    client.close();
  });

  it('reads the credentials again once after a 401', async () => {
    api.handle((_req, res) => {
      json(res, 401, status(401, 'Unauthorized', 'Unauthorized'));
    });
    const client = KubeClient.fromKubeConfig(api.kubeConfig, { logger: silent });
    await expect(client.get(resources.namespaces, 'default')).rejects.toThrow(
      'GET namespaces default: 401 Unauthorized: Unauthorized',
    );
    expect(api.requests).toHaveLength(2);
    client.close();
  });

  it('times out a request that gets no answer, and stops at once when aborted', async () => {
    api.handle(() => {
      // Never answers.
    });
    const client = KubeClient.fromKubeConfig(api.kubeConfig, {
      timeoutMs: 100,
      retry: { retries: 0 },
    });
    await expect(client.get(resources.namespaces, 'default')).rejects.toMatchObject({
      reason: 'Timeout',
      status: 0,
    });
    const controller = new AbortController();
    const pending = client.get(resources.namespaces, 'default', {
      signal: controller.signal,
      timeoutMs: 60_000,
    });
    controller.abort(new Error('shutting down'));
    await expect(pending).rejects.toThrow('shutting down');
    client.close();
  });
});

describe('KubeClient requests', () => {
  it('sends the bearer token, JSON and the apply content type', async () => {
    const seen: {
      auth?: string | undefined;
      type?: string | undefined;
      body: string;
      url: string;
    }[] = [];
    api.handle((req, res, url) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push({
          auth: req.headers.authorization,
          type: req.headers['content-type'],
          body,
          url: url.pathname + url.search,
        });
        json(res, 200, JSON.parse(body) as object);
      });
    });
    const client = KubeClient.fromKubeConfig(api.kubeConfig, { logger: silent });
    const desired = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', namespace: 'n' },
      data: { k: 'v' },
    };
    await client.apply(resources.configMaps, desired, { fieldManager: 'kfx-test', force: true });
    expect(seen[0]).toEqual({
      auth: 'Bearer fake-token',
      type: 'application/apply-patch+yaml',
      body: JSON.stringify(desired),
      url: '/api/v1/namespaces/n/configmaps/a?fieldManager=kfx-test&force=true',
    });
    client.close();
  });

  it('takes credentials from an exec plugin', async () => {
    const auth: (string | undefined)[] = [];
    api.handle((req, res) => {
      auth.push(req.headers.authorization);
      json(res, 200, { kind: 'Namespace', metadata: { name: 'default' } });
    });
    const credential = JSON.stringify({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      status: { token: 'from-the-plugin' },
    });
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'fake', server: api.url, skipTLSVerify: true }],
      users: [
        {
          name: 'exec',
          exec: {
            apiVersion: 'client.authentication.k8s.io/v1',
            command: process.execPath,
            args: ['-e', `console.log(${JSON.stringify(credential)})`],
          },
        },
      ],
      contexts: [{ name: 'fake', cluster: 'fake', user: 'exec' }],
      currentContext: 'fake',
    });
    const client = KubeClient.fromKubeConfig(kc, { logger: silent });
    await client.get(resources.namespaces, 'default');
    expect(auth).toEqual(['Bearer from-the-plugin']);
    client.close();
  });

  it('refuses a cluster without a usable server URL', () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: 'ftp://x', skipTLSVerify: false }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    expect(() => KubeClient.fromKubeConfig(kc)).toThrow(
      'cluster "c": server ftp://x is not an http(s) URL',
    );
  });
});

describe('KubeClient lists', () => {
  it('hands over each object as it is read, page by page, never a whole page at once', async () => {
    let release: (() => void) | undefined;
    const pages: string[] = [];
    api.handle((req, res) => {
      const url = new URL(req.url ?? '', 'http://x');
      pages.push(url.searchParams.get('continue') ?? 'first');
      res.writeHead(200, { 'content-type': 'application/json' });
      if (!url.searchParams.has('continue')) {
        res.write('{"apiVersion":"v1","kind":"ConfigMapList","metadata":{"continue":"p2"},');
        res.write('"items":[{"metadata":{"name":"a","namespace":"n"}},');
        // The rest of the page waits until the test has seen the first object.
        release = () => {
          release = undefined;
          res.end('{"metadata":{"name":"b","namespace":"n"}}]}');
        };
      } else {
        res.end(
          '{"metadata":{"resourceVersion":"9","continue":""},"items":[{"metadata":{"name":"c"}}]}',
        );
      }
    });
    const client = KubeClient.fromKubeConfig(api.kubeConfig, { logger: silent });
    const seen: string[] = [];
    const listed = client.eachItem(resources.configMaps, { namespace: 'n' }, (item) => {
      seen.push(`${item.kind ?? ''}/${item.apiVersion ?? ''}/${item.metadata?.name ?? ''}`);
      if (seen.length === 1) release?.();
    });
    expect(await listed).toMatchObject({ metadata: { resourceVersion: '9', continue: '' } });
    expect(seen).toEqual(['ConfigMap/v1/a', 'ConfigMap/v1/b', 'ConfigMap/v1/c']);
    expect(pages).toEqual(['first', 'p2']);
    const all = client.list(resources.configMaps, { namespace: 'n' });
    await until(() => release !== undefined && pages.length === 3, 'the third page');
    release?.();
    expect((await all).items.map((i) => i.metadata?.name)).toEqual(['a', 'b', 'c']);
    client.close();
  });

  it('names the request when a list answer is not a list', async () => {
    api.handle((_req, res) => {
      json(res, 200, ['not', 'a', 'list']);
    });
    const client = KubeClient.fromKubeConfig(api.kubeConfig, { logger: silent });
    await expect(client.list(resources.configMaps, { namespace: 'n' })).rejects.toThrow(
      /^GET configmaps in n: 200 BadResponse: reading a list: the answer is not a JSON object/,
    );
    client.close();
  });
});
