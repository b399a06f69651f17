// One client must not take the exposer from every other, against a real kube-apiserver. The
// attacker is a tenant with a namespace-edit token (or many ServiceAccounts of its namespace)
// holding watches and idle connections, or nobody at all: anonymous clients that never finish
// their TLS handshake or their request head, from one address and from many. Meanwhile tenant B,
// from another address, makes 30 ordinary requests, each on a new connection: all must succeed.
// The attacker talks raw TLS, as a hostile client would, and keeps whatever the proxy lets it
// keep.
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
  type CapturedLogs,
  type Cluster,
  type ProxyPki,
} from '../testing/fixtures.js';
import { call } from '../testing/https-client.js';
import {
  holdTcp as heldTcp,
  holdTls as heldTls,
  release,
  stillOpen,
  type Held,
} from '../testing/held-connections.js';
import { openWebSocket } from '../testing/websocket.js';

let cluster: Cluster;
/** The file's namespace (tenant A, the attacker) and tenant B's. */
let ns: string;
let nsB: string;
let pki: ProxyPki;
let logs: CapturedLogs;
/** Tokens of ServiceAccounts of tenant A (`ns`), each allowed to edit everything there. */
const editors: string[] = [];
/** Token of tenant B's plugin, which may read ConfigMaps in `nsB`. */
let tenantB: string;
const closers: (() => Promise<void>)[] = [];

/** The attacker's addresses: one, and many (the whole of 127.0.0.0/8 is this machine). */
const ATTACKER = '127.0.0.2';
const MANY = Array.from({ length: 40 }, (_, i) => `127.0.0.${String(10 + i)}`);
/** Tenant B connects from 127.0.0.1. */
const B_REQUESTS = 30;

/** Small enough that the attacks fit in a test. */
const LIMITS: Partial<ServeOptions> = {
  maxConnections: 40,
  maxLongRunning: 20,
  maxLongRunningPerIdentity: 5,
  maxConnectionsPerSource: 30,
  maxConnectionsPerIdentity: 8,
  maxUnauthenticatedConnections: 10,
  maxUnauthenticatedConnectionsPerSource: 4,
};

const startExposer = (extra: Partial<ServeOptions> = {}) =>
  startTestExposer(cluster, pki, closers, { logger: logs.logger, ...LIMITS, ...extra });

beforeAll(async () => {
  cluster = await joinCluster('exposer-fairness');
  ns = cluster.namespace;
  nsB = await cluster.env.createNamespace('exposer-fairness-b');
  await configMapReader(cluster, nsB, 'plugin');
  const editorNames = Array.from({ length: 8 }, (_, i) => `editor-${String(i)}`);
  await apply(cluster, [
    ...editorNames.map((name) => ({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name, namespace: ns },
    })),
    {
      // As the `edit` ClusterRole, whose rules need the aggregation controller to be filled in.
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'namespace-editor', namespace: ns },
      rules: [{ apiGroups: ['', 'apps', 'batch'], resources: ['*'], verbs: ['*'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'editors', namespace: ns },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'namespace-editor' },
      subjects: editorNames.map((name) => ({ kind: 'ServiceAccount', name, namespace: ns })),
    },
  ]);
  pki = proxyPki(cluster.dir);
  logs = captureLogs();
  const mint = async (serviceAccount: string) =>
    (await mintKubeconfig({ serviceAccount, server: 'https://127.0.0.1:1', client: cluster.admin }))
      .token.token;
  for (const name of editorNames) editors.push(await mint(`${ns}/${name}`));
  tenantB = await mint(`${nsB}/plugin`);
});

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await cluster.stop();
});

const holdTls = (exposer: RunningExposer, from: string, head?: string) =>
  heldTls(exposer.port, pki.ca.cert, from, head);
const holdTcp = (exposer: RunningExposer, from: string) => heldTcp(exposer.port, from);

const watchHead = (token: string, namespace = ns) =>
  `GET /api/v1/namespaces/${namespace}/configmaps?watch=true HTTP/1.1\r\nHost: x\r\n` +
  `Authorization: Bearer ${token}\r\n\r\n`;

/**
 * Tenant B's 30 requests, one after the other, each on a new connection (as a client whose
 * pooled connection was closed would open one): what each got, `200` or the error's code.
 */
async function tenantBRequests(exposer: RunningExposer): Promise<string[]> {
  const outcomes: string[] = [];
  for (let i = 0; i < B_REQUESTS; i++) {
    const outcome = await call(`${exposer.url}/api/v1/namespaces/${nsB}/configmaps`, {
      ca: pki.ca.cert,
      token: tenantB,
      timeoutMs: 20_000,
    }).then(
      (answer) => String(answer.status),
      (error: unknown) => (error as NodeJS.ErrnoException).code ?? (error as Error).message,
    );
    outcomes.push(outcome);
  }
  return outcomes;
}

const allOk = Array.from({ length: B_REQUESTS }, () => '200');

/** Unauthenticated connections stayed within their budget, the oldest closed to make room. */
async function expectUnauthenticatedBounded(exposer: RunningExposer): Promise<void> {
  const sample = (name: string) => metricSample(exposer.opsUrl, name);
  expect(await sample('kfx_exposer_connections_evicted_total')).toBeGreaterThan(0);
  expect(await sample('kfx_exposer_unauthenticated_connections')).toBeLessThanOrEqual(10);
}

describe('a tenant with a token cannot take every connection', () => {
  it('one namespace-edit token holding watches gets 429 past its cap, and tenant B its requests', async () => {
    const exposer = await startExposer();
    const held: Held[] = [];
    try {
      for (let i = 0; i < 40; i++)
        held.push(await holdTls(exposer, ATTACKER, watchHead(editors[0] ?? '')));
      expect(await tenantBRequests(exposer)).toEqual(allOk);
      // Its first five watch; the rest were told why, and when to retry (client-go does).
      expect(stillOpen(held, '200')).toBe(5);
      const refused = held.find((h) => h.status() === '429')?.answer() ?? '';
      expect(refused).toMatch(/\r\nRetry-After: 5\r\n/i);
      expect(refused).toContain(
        `too many long-running requests (watches, followed logs, exec, attach, port-forward) for service accounts of namespace ${ns}: 5 at once (the proxy`,
      );
      expect(refused).toContain("the proxy's maxLongRunningPerIdentity limit");
      // The refused connections are unauthenticated: a few are kept from one address, and
      // the rest were closed as they arrived.
      expect(held.filter((h) => h.closed()).length).toBeGreaterThan(0);
      expect(
        await metricSample(
          exposer.opsUrl,
          'kfx_exposer_long_running_refused_total{limit="maxLongRunningPerIdentity"}',
        ),
      ).toBeGreaterThan(0);
      expect(
        await metricSample(
          exposer.opsUrl,
          'kfx_exposer_connections_refused_total{limit="maxUnauthenticatedConnectionsPerSource"}',
        ),
      ).toBeGreaterThan(0);
      // exec, attach, port-forward and WebSocket watches count as long-running too.
      const { hostname, port } = new URL(exposer.url);
      const ws = await openWebSocket(
        hostname,
        Number(port),
        `/api/v1/namespaces/${ns}/configmaps?watch=true`,
        { ca: pki.ca.cert, token: editors[1] ?? '' },
      );
      expect(ws.head).toMatch(/^HTTP\/1\.1 429 /);
      ws.close();
    } finally {
      release(held);
    }
  });

  it('many ServiceAccounts of one namespace, from many addresses, share its budget', async () => {
    const exposer = await startExposer();
    const held: Held[] = [];
    try {
      for (let i = 0; i < 40; i++) {
        const token = editors[i % editors.length] ?? '';
        held.push(await holdTls(exposer, MANY[i % MANY.length] ?? ATTACKER, watchHead(token)));
      }
      expect(await tenantBRequests(exposer)).toEqual(allOk);
      expect(stillOpen(held, '200')).toBe(5);
      expect(held.filter((h) => h.status() === '429').length).toBe(35);
      // The refused ones stayed unauthenticated: the oldest were closed to make room.
      await expectUnauthenticatedBounded(exposer);
    } finally {
      release(held);
    }
  });

  it('idle connections kept open with a valid token are closed past its cap', async () => {
    const exposer = await startExposer();
    const held: Held[] = [];
    const get = `GET /api/v1/namespaces/${ns}/configmaps HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${editors[0] ?? ''}\r\n\r\n`;
    try {
      for (let i = 0; i < 40; i++) held.push(await holdTls(exposer, ATTACKER, get));
      expect(await tenantBRequests(exposer)).toEqual(allOk);
      // Every request was answered; past the eighth connection of tenant A, with Connection: close.
      const answered = held.filter((h) => h.status() === '200');
      expect(answered.length).toBeGreaterThanOrEqual(9);
      expect(stillOpen(held, '200')).toBe(8);
      expect(answered.some((h) => /\r\nConnection: close\r\n/i.test(h.answer()))).toBe(true);
      expect(
        await metricSample(
          exposer.opsUrl,
          'kfx_exposer_connections_refused_total{limit="maxConnectionsPerIdentity"}',
        ),
      ).toBeGreaterThan(0);
    } finally {
      release(held);
    }
  });
});

describe('anonymous clients that never finish their handshake or head cannot take every connection', () => {
  it('slow handshakes and slow heads, from one address and from many', async () => {
    const exposer = await startExposer();
    const held: Held[] = [];
    const slowHead = 'GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n';
    try {
      const opening: Promise<Held>[] = [];
      for (let i = 0; i < 50; i++) {
        opening.push(
          i % 2 === 0 ? holdTcp(exposer, ATTACKER) : holdTls(exposer, ATTACKER, slowHead),
        );
      }
      MANY.forEach((from, i) => {
        opening.push(i % 2 === 0 ? holdTcp(exposer, from) : holdTls(exposer, from, slowHead));
      });
      held.push(...(await Promise.all(opening)));
      expect(await tenantBRequests(exposer)).toEqual(allOk);
      expect(
        await metricSample(
          exposer.opsUrl,
          'kfx_exposer_connections_refused_total{limit="maxUnauthenticatedConnectionsPerSource"}',
        ),
      ).toBeGreaterThan(0);
      await expectUnauthenticatedBounded(exposer);
    } finally {
      release(held);
    }
  });
});
