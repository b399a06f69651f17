// The raw client against a real kube-apiserver: verbs, paging, errors as the server words them,
// discovery, a real 410, RBAC, surviving an apiserver restart, and proxy handling (API traffic
// never goes through HTTP(S)_PROXY unless asked to).
// It owns its control plane: it restarts the API server.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { startControlPlane, type ControlPlane } from '@kfx/testenv';
import { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from './client.js';
import { isConflict, isGone, isNotFound, KubeApiError } from './errors.js';
import { resources, type KubeObject } from './resources.js';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

const logger = pino({ level: 'silent' });
let env: ControlPlane;
let client: KubeClient;

beforeAll(async () => {
  env = await startControlPlane();
  client = KubeClient.fromKubeConfig(env.kubeConfig, { logger });
  await client.create(resources.namespaces, { metadata: { name: 'client-test' } });
});
afterAll(async () => {
  client.close();
  await env.stop();
});

const requestsBy = async (c: KubeClient, method: string) =>
  (await c.registry.getSingleMetricAsString('kfx_kube_api_requests_total'))
    .split('\n')
    .filter((line) => line.includes(`method="${method}"`))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);

describe('KubeClient on a real apiserver', () => {
  it('creates, reads, patches, replaces and deletes, keeping JSON as the server sent it', async () => {
    const created = await client.create<ConfigMap>(resources.configMaps, {
      metadata: { name: 'crud', namespace: 'client-test' },
      data: { a: '1' },
    });
    expect(typeof created.metadata?.creationTimestamp).toBe('string');
    const read = await client.get<ConfigMap>(resources.configMaps, 'crud', {
      namespace: 'client-test',
    });
    expect(read.metadata?.uid).toBe(created.metadata?.uid);
    const patched = await client.patch<ConfigMap>(
      resources.configMaps,
      'crud',
      { data: { b: '2' } },
      { namespace: 'client-test' },
    );
    expect(patched.data).toEqual({ a: '1', b: '2' });
    // A replace carrying the old resourceVersion loses the race.
    const stale = await client
      .replace(resources.configMaps, { ...read, data: { c: '3' } })
      .catch((e: unknown) => e);
    expect(isConflict(stale)).toBe(true);
    const replaced = await client.replace<ConfigMap>(resources.configMaps, {
      ...patched,
      data: { c: '3' },
    });
    expect(replaced.data).toEqual({ c: '3' });
    await client.delete(resources.configMaps, 'crud', { namespace: 'client-test' });
    const gone = await client
      .get(resources.configMaps, 'crud', { namespace: 'client-test' })
      .catch((e: unknown) => e);
    expect(isNotFound(gone)).toBe(true);
    expect((gone as Error).message).toBe(
      'GET configmaps client-test/crud: 404 NotFound: configmaps "crud" not found',
    );
  });

  it('joins list pages and gives every item its apiVersion and kind', async () => {
    for (let i = 0; i < 25; i++) {
      await client.create(resources.configMaps, {
        metadata: { name: `page-${i}`, namespace: 'client-test', labels: { paged: 'yes' } },
      });
    }
    const before = await requestsBy(client, 'GET');
    const list = await client.list<ConfigMap>(resources.configMaps, {
      namespace: 'client-test',
      labelSelector: 'paged=yes',
      pageSize: 10,
    });
    expect(await requestsBy(client, 'GET')).toBe(before + 3);
    expect(list.items).toHaveLength(25);
    expect(new Set(list.items.map((i) => `${i.apiVersion}/${i.kind}`))).toEqual(
      new Set(['v1/ConfigMap']),
    );
    expect(Number(list.metadata.resourceVersion)).toBeGreaterThan(0);
    // The same snapshot again, by its resourceVersion, across pages too.
    const getsBefore = await requestsBy(client, 'GET');
    const again = await client.list(resources.configMaps, {
      namespace: 'client-test',
      labelSelector: 'paged=yes',
      pageSize: 10,
      resourceVersion: list.metadata.resourceVersion,
    });
    expect(again.items).toHaveLength(25);
    expect(await requestsBy(client, 'GET')).toBe(getsBefore + 3);
  });

  it('words validation errors as the server does, naming the object and field', async () => {
    const error = await client
      .create(resources.configMaps, { metadata: { name: 'Not_Valid', namespace: 'client-test' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeApiError);
    expect((error as KubeApiError).status).toBe(422);
    expect((error as KubeApiError).message).toMatch(
      /^POST configmaps in client-test: 422 Invalid: ConfigMap "Not_Valid" is invalid: metadata.name/,
    );
  });

  it('resolves kinds through discovery, CRDs included', async () => {
    expect(await client.resolve('kubeflow.org/v1', 'Profile')).toEqual(resources.profiles);
    expect(await client.resolve('apps/v1', 'StatefulSet')).toEqual({
      group: 'apps',
      version: 'v1',
      resource: 'statefulsets',
      kind: 'StatefulSet',
      namespaced: true,
    });
    await expect(client.resolve('apps/v1', 'Nope')).rejects.toThrow(
      /the server has no kind Nope in apps\/v1 \(it serves: .*StatefulSet/,
    );
    await expect(client.resolve('example.com/v1', 'Thing')).rejects.toThrow(
      'the server does not serve example.com/v1 (is its CRD installed?)',
    );
  });

  it('gets 403 with the server message for a user without rights', async () => {
    const { kubeConfig } = env.userKubeconfig('nobody');
    const nobody = KubeClient.fromKubeConfig(kubeConfig, { logger });
    await expect(nobody.list(resources.secrets, { namespace: 'client-test' })).rejects.toThrow(
      'GET secrets in client-test: 403 Forbidden: secrets is forbidden: User "nobody" cannot list resource "secrets" in API group "" in the namespace "client-test"',
    );
    nobody.close();
  });

  it('keeps working across an apiserver restart, after which old resourceVersions are 410 Gone', async () => {
    const before = await client.list(resources.configMaps, { namespace: 'client-test' });
    // A write moves etcd past the listed resourceVersion, so the restarted apiserver's watch
    // cache starts after it whatever else the cluster did meanwhile.
    await client.create(resources.namespaces, { metadata: { name: 'client-test-moved-on' } });
    await env.restartApiServer();
    const after = await client.get(resources.namespaces, 'client-test');
    expect(after.metadata?.name).toBe('client-test');
    await client.create(resources.configMaps, {
      metadata: { name: 'after-restart', namespace: 'client-test' },
    });
    // The restarted apiserver's watch cache starts after the old list: watching from it fails.
    const watch = client.watch(resources.configMaps, {
      namespace: 'client-test',
      resourceVersion: before.metadata.resourceVersion,
    });
    const error = await (async () => {
      for await (const event of watch) return event;
      return undefined;
    })().catch((e: unknown) => e);
    expect(isGone(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /^WATCH configmaps in client-test: 410 Expired: too old resource version/,
    );
  });
});

describe('API traffic and HTTP(S)_PROXY', () => {
  /** A CONNECT proxy that counts the tunnels it opens. */
  async function countingProxy(): Promise<{
    url: string;
    tunnels: () => number;
    close: () => void;
  }> {
    let tunnels = 0;
    const proxy = http.createServer();
    proxy.on('connect', (request: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
      tunnels++;
      const [host = '', port = ''] = (request.url ?? '').split(':');
      const upstream = net.connect(Number(port), host, () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const { port } = proxy.address() as net.AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      tunnels: () => tunnels,
      close: () => {
        proxy.closeAllConnections();
        proxy.close();
      },
    };
  }

  function withEnv<T>(vars: Record<string, string>, run: () => Promise<T>): Promise<T> {
    const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
    Object.assign(process.env, vars);
    return run().finally(() => {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) Reflect.deleteProperty(process.env, k);
        else process.env[k] = v;
      }
    });
  }

  it('ignores HTTPS_PROXY/HTTP_PROXY even with NODE_USE_ENV_PROXY=1, while Node’s own agent obeys them', async () => {
    const dead = 'http://127.0.0.1:9';
    await withEnv(
      {
        HTTPS_PROXY: dead,
        HTTP_PROXY: dead,
        https_proxy: dead,
        NO_PROXY: '',
        NODE_USE_ENV_PROXY: '1',
      },
      async () => {
        // What NODE_USE_ENV_PROXY=1 does at start-up, done now for this process.
        const restore = http.setGlobalProxyFromEnv();
        try {
          const viaGlobalAgent = await new Promise<string>((resolve) => {
            https
              .get(`${env.server}/version`, { ca: env.caCert }, (res) => {
                resolve(`HTTP ${res.statusCode ?? 0}`);
              })
              .on('error', (e) => {
                resolve(e.message);
              });
          });
          expect(viaGlobalAgent).toContain('ECONNREFUSED 127.0.0.1:9');
          const direct = KubeClient.fromKubeConfig(env.kubeConfig, { logger });
          expect(direct.proxy).toBeUndefined();
          expect((await direct.get(resources.namespaces, 'default')).metadata?.name).toBe(
            'default',
          );
          direct.close();
        } finally {
          restore();
        }
      },
    );
  });

  it('goes through the environment proxy with useProxyEnv, minding NO_PROXY', async () => {
    const proxy = await countingProxy();
    try {
      await withEnv({ HTTPS_PROXY: proxy.url, NO_PROXY: '' }, async () => {
        const proxied = KubeClient.fromKubeConfig(env.kubeConfig, { useProxyEnv: true, logger });
        await proxied.get(resources.namespaces, 'default');
        expect(proxy.tunnels()).toBe(1);
        proxied.close();
      });
      await withEnv({ HTTPS_PROXY: proxy.url, NO_PROXY: '127.0.0.1' }, async () => {
        const bypassing = KubeClient.fromKubeConfig(env.kubeConfig, { useProxyEnv: true, logger });
        await bypassing.get(resources.namespaces, 'default');
        expect(proxy.tunnels()).toBe(1);
        bypassing.close();
      });
    } finally {
      proxy.close();
    }
  });

  it('goes through a kubeconfig proxy-url', async () => {
    const proxy = await countingProxy();
    try {
      const kc = new KubeConfig();
      kc.loadFromString(env.kubeConfig.exportConfig());
      kc.clusters = kc.clusters.map((cluster) => ({ ...cluster, proxyUrl: proxy.url }));
      const proxied = KubeClient.fromKubeConfig(kc, { logger });
      expect(proxied.proxy).toBe(proxy.url);
      await proxied.get(resources.namespaces, 'default');
      await proxied.list(resources.configMaps, { namespace: 'default' });
      // One keep-alive connection carries both requests.
      expect(proxy.tunnels()).toBe(1);
      proxied.close();
    } finally {
      proxy.close();
    }
  });
});
