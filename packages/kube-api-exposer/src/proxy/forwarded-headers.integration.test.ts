// What the apiserver learns about a caller through the exposer, read from its own audit log: the
// source address is the one the exposer saw (a caller cannot plant another with X-Forwarded-For
// or X-Real-Ip, on plain requests or upgrades), and impersonation is authorized against the
// caller's own token, so forwarding Impersonate-* lends nobody more than their token allows.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintKubeconfig, serve, type RunningExposer } from '../index.js';
import {
  apply,
  captureLogs,
  configMapReader,
  proxyPki,
  joinCluster,
  type Cluster,
  type ProxyPki,
} from '../testing/fixtures.js';
import { auditEventFor, auditLogOf } from '../testing/audit-log.js';
import { call, type Answer } from '../testing/https-client.js';
import { openWebSocket } from '../testing/websocket.js';

/** Where the caller connects from: not the proxy's own address, so the two can be told apart. */
const CALLER = '127.0.0.2';
const PROXY = '127.0.0.1';
/** Headers a caller may send to pass itself off as someone else, or as a front proxy. */
const SPOOFED = {
  'X-Forwarded-For': '203.0.113.66',
  'X-Real-Ip': '198.51.100.77',
  'X-Forwarded-Host': 'spoofed.example.org',
  'X-Forwarded-Proto': 'http',
  'X-Remote-User': 'system:admin',
  'X-Remote-Group': 'system:masters',
};

let auditLog: string;
let cluster: Cluster;
let ns: string;
let pki: ProxyPki;
let exposer: RunningExposer;
let pluginToken: string;
let impersonatorToken: string;

beforeAll(async () => {
  cluster = await joinCluster('exposer-forwarded');
  ns = cluster.namespace;
  // The shared plane's apiserver audits every request into its folder (vitest.config.ts).
  auditLog = auditLogOf(cluster.env.dir);
  await configMapReader(cluster, ns, 'plugin');
  await apply(cluster, [
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'impersonator', namespace: ns },
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: `${ns}-impersonate-alice` },
      rules: [
        { apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: ['alice'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `${ns}-impersonator` },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: `${ns}-impersonate-alice`,
      },
      subjects: [{ kind: 'ServiceAccount', name: 'impersonator', namespace: ns }],
    },
  ]);
  pki = proxyPki(cluster.dir);
  exposer = await serve({
    host: PROXY,
    port: 0,
    tlsCert: pki.certFile,
    tlsKey: pki.keyFile,
    upstream: cluster.env.server,
    upstreamCa: cluster.apiCaFile,
    metrics: false,
    logger: captureLogs().logger,
  });
  const mint = async (serviceAccount: string) =>
    (
      await mintKubeconfig({
        serviceAccount,
        server: exposer.url,
        caFile: pki.caFile,
        client: cluster.admin,
      })
    ).token.token;
  pluginToken = await mint(`${ns}/plugin`);
  impersonatorToken = await mint(`${ns}/impersonator`);
});

afterAll(async () => {
  await exposer.close();
  await cluster.stop();
});

const message = (answer: Answer) => (answer.json as { message?: string }).message ?? answer.text;

/** A label selector no other request uses, to find this request's audit event. */
const marker = () => `probe=${randomBytes(6).toString('hex')}`;

describe('the apiserver records where a caller really is', () => {
  it('sees the address the exposer saw, whatever X-Forwarded-For and X-Real-Ip the caller sends', async () => {
    const selector = marker();
    const answer = await call(
      `${exposer.url}/api/v1/namespaces/${ns}/configmaps?labelSelector=${selector}`,
      { ca: pki.ca.cert, token: pluginToken, headers: SPOOFED, localAddress: CALLER },
    );
    expect(answer.status).toBe(200);
    const event = await auditEventFor(auditLog, selector);
    // The caller as the exposer saw it, then the exposer as the apiserver saw it.
    expect(event.sourceIPs).toEqual([CALLER, PROXY]);
    expect(event.user.username).toBe(`system:serviceaccount:${ns}:plugin`);
  });

  it('does the same for an upgraded connection (a WebSocket watch)', async () => {
    const selector = marker();
    const { hostname, port } = new URL(exposer.url);
    const ws = await openWebSocket(
      hostname,
      Number(port),
      `/api/v1/namespaces/${ns}/configmaps?watch=true&labelSelector=${selector}`,
      { ca: pki.ca.cert, token: pluginToken, headers: SPOOFED, localAddress: CALLER },
    );
    try {
      expect(ws.head).toMatch(/^HTTP\/1\.1 101 /);
      const event = await auditEventFor(auditLog, selector);
      expect(event.sourceIPs).toEqual([CALLER, PROXY]);
    } finally {
      ws.close();
    }
  });
});

describe('impersonation is forwarded and authorized against the caller’s own token', () => {
  it('refuses a caller whose token may not impersonate, in the apiserver’s words', async () => {
    const answer = await call(`${exposer.url}/api/v1/namespaces`, {
      ca: pki.ca.cert,
      token: pluginToken,
      headers: { 'Impersonate-User': 'system:admin', 'Impersonate-Group': 'system:masters' },
    });
    expect(answer.status).toBe(403);
    // The apiserver's own refusal, naming the caller; the proxy did not decide.
    expect(message(answer)).toMatch(/^[^:]* is forbidden: /);
    expect(message(answer)).toContain(
      `User "system:serviceaccount:${ns}:plugin" cannot impersonate`,
    );
  });

  it('lets a caller allowed to impersonate act as that user, and the audit names both', async () => {
    const selector = marker();
    const answer = await call(
      `${exposer.url}/api/v1/namespaces/${ns}/configmaps?labelSelector=${selector}`,
      { ca: pki.ca.cert, token: impersonatorToken, headers: { 'Impersonate-User': 'alice' } },
    );
    // alice may not list ConfigMaps: the apiserver decided as alice.
    expect(answer.status).toBe(403);
    expect(message(answer)).toContain('User "alice" cannot list resource "configmaps"');
    const event = await auditEventFor(auditLog, selector);
    expect(event.user.username).toBe(`system:serviceaccount:${ns}:impersonator`);
    expect(event.impersonatedUser?.username).toBe('alice');
  });
});
