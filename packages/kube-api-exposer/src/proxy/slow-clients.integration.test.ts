// Slow and numerous clients against a real kube-apiserver: request bodies that never finish
// hold a place under the in-flight limits and no more (the rest get 429 with Retry-After at
// once, and reads go on), a body that does not arrive in time gets 408 and costs the apiserver
// nothing, a refusal sent before the body came closes the connection, and connections beyond
// the cap are refused, while watches keep streaming throughout.
import { resources } from '@kfx/kube-runtime/client';
import { waitFor } from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintKubeconfig, type RunningExposer, type ServeOptions } from '../index.js';
import {
  apply,
  captureLogs,
  configMapReader,
  metricSample,
  proxyPki,
  joinCluster,
  startTestExposer,
  until,
  type CapturedLogs,
  type Cluster,
  type ProxyPki,
} from '../testing/fixtures.js';
import { call, watch } from '../testing/https-client.js';
import { openRaw } from '../testing/raw-tls.js';

let cluster: Cluster;
let ns: string;
let pki: ProxyPki;
let logs: CapturedLogs;
/** Token of <ns>/plugin, which may read ConfigMaps. */
let token: string;
/** Token of <ns>/writer, which may also create them. */
let writerToken: string;
const closers: (() => Promise<void>)[] = [];

const startExposer = (extra: Partial<ServeOptions> = {}) =>
  startTestExposer(cluster, pki, closers, { logger: logs.logger, ...extra });

beforeAll(async () => {
  // Requests the apiserver waits on (slow bodies) must outlive its default 60 s request timeout
  // on a slow machine, or a held place would free itself in the middle of a test: the shared
  // plane's apiserver runs with --request-timeout=10m (vitest.config.ts).
  cluster = await joinCluster('exposer-slow-clients');
  ns = cluster.namespace;
  await configMapReader(cluster, ns, 'plugin');
  await apply(cluster, [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'writer', namespace: ns } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'configmap-writer', namespace: ns },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'create'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'writer-writes-configmaps', namespace: ns },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'configmap-writer' },
      subjects: [{ kind: 'ServiceAccount', name: 'writer', namespace: ns }],
    },
  ]);
  pki = proxyPki(cluster.dir);
  logs = captureLogs();
  const mint = async (serviceAccount: string) =>
    (await mintKubeconfig({ serviceAccount, server: 'https://127.0.0.1:1', client: cluster.admin }))
      .token.token;
  token = await mint(`${ns}/plugin`);
  writerToken = await mint(`${ns}/writer`);
});

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await cluster.stop();
});

/**
 * A POST that creates a ConfigMap, whose head and first byte of body are sent at once and whose
 * remaining body never comes: a slow (or malicious) client. The apiserver reads a body of up to
 * 256 KiB before it answers, even a refusal; `padding` makes it larger than that.
 */
async function slowBody(
  exposer: RunningExposer,
  bearer: string | undefined,
  name: string,
  padding = 1000,
) {
  const connection = await openRaw(exposer.port, pki.ca.cert);
  const body = JSON.stringify({ metadata: { name }, data: { padding: 'x'.repeat(padding) } });
  connection.socket.write(
    `POST /api/v1/namespaces/${ns}/configmaps HTTP/1.1\r\nHost: x\r\n` +
      'Content-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      (bearer === undefined ? '' : `Authorization: Bearer ${bearer}\r\n`) +
      `\r\n${body.slice(0, 1)}`,
  );
  return connection;
}

describe('slow and numerous clients are bounded', () => {
  it('answers 429 with Retry-After beyond the in-flight limit while slow bodies hold it, and keeps serving reads and watches', async () => {
    const exposer = await startExposer({
      maxMutatingRequestsInflight: 3,
      maxRequestsInflight: 2,
      requestBodyTimeout: 3600,
    });
    // Watches are long-running: they do not count against the in-flight limits.
    const watches = await Promise.all(
      [1, 2, 3].map(() =>
        watch(`${exposer.url}/api/v1/namespaces/${ns}/configmaps?watch=true`, {
          ca: pki.ca.cert,
          token,
        }),
      ),
    );
    expect(watches.map((w) => w.status)).toEqual([200, 200, 200]);
    const held = [];
    // Anonymous: the apiserver waits for the body before it even refuses system:anonymous.
    for (let i = 0; i < 3; i++) held.push(await slowBody(exposer, undefined, `held-${i}`));
    await until(
      'the three slow bodies to be in flight',
      async () =>
        (await metricSample(exposer.opsUrl, 'kfx_exposer_active_streams{kind="request"}')) === 3,
    );
    const extra = await Promise.all(
      [0, 1, 2, 3, 4].map((i) => slowBody(exposer, undefined, `extra-${i}`)),
    );
    for (const connection of extra) {
      // Answered without waiting for the body, and the connection closed.
      const answer = await connection.closed;
      expect(answer).toMatch(/^HTTP\/1\.1 429 /);
      expect(answer).toMatch(/\r\nRetry-After: 1\r\n/i);
      expect(answer).toContain('"reason":"TooManyRequests"');
      expect(answer).toContain(
        "too many requests in flight: 3 with a body or a method that changes something (the proxy's maxMutatingRequestsInflight limit)",
      );
    }
    // Meanwhile reads are served, and the watches still deliver events.
    const list = await call(`${exposer.url}/api/v1/namespaces/${ns}/configmaps`, {
      ca: pki.ca.cert,
      token,
    });
    expect(list.status).toBe(200);
    await cluster.admin.create(resources.configMaps, {
      metadata: { name: 'while-slow-bodies', namespace: ns },
    });
    for (const w of watches) {
      for (;;) {
        const event = await w.next(20_000);
        if (event.object.metadata?.name === 'while-slow-bodies') break;
      }
    }
    // The held requests are still waiting for their bodies, not answered.
    expect(held.map((c) => c.received())).toEqual(['', '', '']);
    // Once the slow clients go, their places are free again.
    for (const connection of held) connection.socket.destroy();
    await until(
      'the slow bodies to be gone',
      async () =>
        (await metricSample(exposer.opsUrl, 'kfx_exposer_active_streams{kind="request"}')) === 0,
    );
    const created = await call(`${exposer.url}/api/v1/namespaces/${ns}/configmaps`, {
      ca: pki.ca.cert,
      token: writerToken,
      method: 'POST',
      body: { metadata: { name: 'after-slow-bodies' } },
    });
    expect(created.status).toBe(201);
    for (const w of watches) w.close();
    expect(
      await metricSample(exposer.opsUrl, 'kfx_exposer_requests_total{code="429",method="POST"}'),
    ).toBe(5);
  });

  it('answers 408 to a body that does not arrive in time, asks nothing of the apiserver, and leaves watches alone', async () => {
    const exposer = await startExposer({ requestBodyTimeout: 1 });
    const events = await watch(`${exposer.url}/api/v1/namespaces/${ns}/configmaps?watch=true`, {
      ca: pki.ca.cert,
      token,
    });
    const slow = await slowBody(exposer, writerToken, 'never-complete');
    const answer = await slow.closed;
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('the request body did not arrive within 1 s');
    const line = await waitFor(
      () => {
        const found = logs.lines.find(
          (l) => l.msg === 'access' && String(l.error).includes('request body did not arrive'),
        );
        return Promise.resolve(
          found ? { done: true as const, value: found } : { done: false as const, saw: 'none' },
        );
      },
      { description: 'the access line of the slow body', timeoutMs: 20_000 },
    );
    expect(line.status).toBe(408);
    const missing = await call(`${exposer.url}/api/v1/namespaces/${ns}/configmaps/never-complete`, {
      ca: pki.ca.cert,
      token: writerToken,
    });
    expect(missing.status).toBe(404);
    // A body sent at once is not affected, and a watch open longer than the body timeout still
    // streams: the timeout is for receiving a request, not for a response.
    const created = await call(`${exposer.url}/api/v1/namespaces/${ns}/configmaps`, {
      ca: pki.ca.cert,
      token: writerToken,
      method: 'POST',
      body: { metadata: { name: 'prompt-body' } },
    });
    expect(created.status).toBe(201);
    for (;;) {
      const event = await events.next(20_000);
      if (event.object.metadata?.name === 'prompt-body') break;
    }
    events.close();
  });

  it('closes the connection of a slow body the apiserver refused without reading it', async () => {
    const exposer = await startExposer({ requestBodyTimeout: 3600 });
    // Over 256 KiB: the apiserver refuses system:anonymous at once and closes its side. The
    // proxy passes the refusal on and closes the caller's connection too, instead of keeping it
    // open for the rest of a body nobody will read.
    const slow = await slowBody(exposer, undefined, 'anonymous', 1_000_000);
    const answer = await slow.closed;
    expect(answer).toMatch(/^HTTP\/1\.1 403 /);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    expect(answer).toContain('system:anonymous');
  });

  it('refuses connections beyond --max-connections until one closes', async () => {
    // One source, and unauthenticated connections (these send no request), may take all four.
    const exposer = await startExposer({
      maxConnections: 4,
      maxConnectionsPerSource: 4,
      maxUnauthenticatedConnections: 4,
      maxUnauthenticatedConnectionsPerSource: 4,
    });
    const open = [];
    for (let i = 0; i < 4; i++) open.push(await openRaw(exposer.port, pki.ca.cert));
    await expect(openRaw(exposer.port, pki.ca.cert)).rejects.toThrow(
      'closed the connection during the TLS handshake',
    );
    expect(
      await metricSample(
        exposer.opsUrl,
        'kfx_exposer_connections_refused_total{limit="maxConnections"}',
      ),
    ).toBeGreaterThanOrEqual(1);
    open.pop()?.socket.destroy();
    await until(
      'a connection to be accepted again',
      async () =>
        (await call(`${exposer.url}/version`, { ca: pki.ca.cert, token }).catch(() => undefined))
          ?.status === 200,
    );
    for (const connection of open) connection.socket.destroy();
  });
});
