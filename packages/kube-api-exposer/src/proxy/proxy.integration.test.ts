// The exposer in front of a real kube-apiserver, used the way an external plugin uses it: a
// minted service-account token lists and watches, RBAC denials come from the apiserver, paths
// outside the allow-list never leave the proxy, the proxy lends no identity, TLS is verified
// against the exposed CA for an IP SAN, expired / wrong-audience / unbound tokens are refused,
// and exec (WebSocket and SPDY) and WebSocket watches pass through upgrades.
import { writeFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { createCertificateAuthority } from '@kfx/dev-certs';
import { resources } from '@kfx/kube-runtime/client';
import type { V1Pod } from '@kubernetes/client-node';
import { kubectl, runKubectl, waitFor } from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintKubeconfig, type RunningExposer, type ServeOptions } from '../index.js';
import {
  apply,
  captureLogs,
  configMapReader,
  proxyPki,
  joinCluster,
  startTestExposer,
  type CapturedLogs,
  type Cluster,
  type ProxyPki,
} from '../testing/fixtures.js';
import { call, watch, type Answer } from '../testing/https-client.js';
import { jwtClaims, signJwt } from '../testing/jwt.js';
import { openWebSocket } from '../testing/websocket.js';

let cluster: Cluster;
let ns: string;
let pki: ProxyPki;
let logs: CapturedLogs;
let exposer: RunningExposer;
/** Token of <ns>/plugin, which may read ConfigMaps in the file's namespace only. */
let pluginToken: string;
let pluginKubeconfig: string;
/** Token of <ns>/root, bound to cluster-admin. */
let rootToken: string;
const closers: (() => Promise<void>)[] = [];

const startExposer = (extra: Partial<ServeOptions> = {}) =>
  startTestExposer(cluster, pki, closers, { logger: logs.logger, ...extra });

const mint = async (serviceAccount: string, extra: { audience?: string[]; pod?: string } = {}) =>
  (
    await mintKubeconfig({
      serviceAccount,
      server: exposer.url,
      caFile: pki.caFile,
      client: cluster.admin,
      ...extra,
    })
  ).token.token;

beforeAll(async () => {
  cluster = await joinCluster('exposer-proxy');
  ns = cluster.namespace;
  await configMapReader(cluster, ns, 'plugin');
  await apply(cluster, [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'root', namespace: ns } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `${ns}-root` },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'cluster-admin',
      },
      subjects: [{ kind: 'ServiceAccount', name: 'root', namespace: ns }],
    },
  ]);
  pki = proxyPki(cluster.dir);
  logs = captureLogs();
  exposer = await startExposer();
  pluginKubeconfig = join(cluster.dir, 'plugin.kubeconfig');
  const minted = await mintKubeconfig({
    serviceAccount: `${ns}/plugin`,
    server: exposer.url,
    caFile: pki.caFile,
    output: pluginKubeconfig,
    client: cluster.admin,
  });
  pluginToken = minted.token.token;
  rootToken = await mint(`${ns}/root`);
});

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await cluster.stop();
});

const configMap = (name: string, data: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns },
  data,
});

describe('through the proxy, a minted service-account token', () => {
  it('lists, and watches with events arriving while the watch stays open', async () => {
    await cluster.admin.create(resources.configMaps, configMap('before-watch'));
    const list = await call(`${exposer.url}/api/v1/namespaces/${ns}/configmaps`, {
      ca: pki.ca.cert,
      token: pluginToken,
    });
    expect(list.status).toBe(200);
    const body = list.json as {
      metadata: { resourceVersion: string };
      items: { metadata: { name: string } }[];
    };
    expect(body.items.map((i) => i.metadata.name)).toContain('before-watch');

    const events = await watch(
      `${exposer.url}/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${body.metadata.resourceVersion}`,
      { ca: pki.ca.cert, token: pluginToken },
    );
    try {
      expect(events.status).toBe(200);
      await cluster.admin.create(resources.configMaps, configMap('during-watch'));
      const added = await events.next();
      expect(added).toMatchObject({
        type: 'ADDED',
        object: { metadata: { name: 'during-watch' } },
      });
      await cluster.admin.patch(
        resources.configMaps,
        'during-watch',
        { data: { step: '2' } },
        { namespace: ns },
      );
      expect(await events.next()).toMatchObject({
        type: 'MODIFIED',
        object: { metadata: { name: 'during-watch' } },
      });
      const metrics = await (await fetch(`${exposer.opsUrl ?? ''}/metrics`)).text();
      expect(metrics).toMatch(/kfx_exposer_active_streams\{kind="watch"\} 1/);
    } finally {
      events.close();
    }
  });

  it('is denied what RBAC denies, in the apiserver’s own words', async () => {
    const secrets = await call(`${exposer.url}/api/v1/namespaces/${ns}/secrets`, {
      ca: pki.ca.cert,
      token: pluginToken,
    });
    expect(secrets.status).toBe(403);
    expect(status(secrets).message).toContain(
      `User "system:serviceaccount:${ns}:plugin" cannot list resource "secrets"`,
    );
    const write = await call(`${exposer.url}/api/v1/namespaces/${ns}/configmaps`, {
      ca: pki.ca.cert,
      token: pluginToken,
      method: 'POST',
      body: configMap('not-allowed'),
    });
    expect(write.status).toBe(403);
    const elsewhere = await call(`${exposer.url}/api/v1/namespaces/default/configmaps`, {
      ca: pki.ca.cert,
      token: pluginToken,
    });
    expect(elsewhere.status).toBe(403);
  });

  it('cannot reach a path outside the allow-list, not even as cluster-admin', async () => {
    const direct = await call(`${cluster.env.server}/metrics`, {
      ca: cluster.env.caCert,
      token: rootToken,
    });
    expect(direct.status).toBe(200); // the token could read it straight from the apiserver
    for (const path of [
      '/metrics',
      '/logs/',
      '/healthz',
      '/api/../metrics',
      '/api/%2e%2e/metrics',
      '/apisx',
    ]) {
      const answer = await call(`${exposer.url}${path}`, { ca: pki.ca.cert, token: rootToken });
      expect(answer.status, path).toBe(403);
      expect(status(answer).message, path).toMatch(/^kfx-expose-api: .* is not exposed/);
    }
  });
});

describe('the proxy lends no identity', () => {
  it('forwards a caller without a token as anonymous, even when started from an admin kubeconfig', async () => {
    const fromAdminKubeconfig = await startExposer({
      upstream: undefined,
      upstreamCa: undefined,
      kubeconfig: cluster.env.kubeconfigPath,
    });
    const admin = cluster.env.kubeConfig.getCurrentUser();
    for (const clientCertificate of [false, true]) {
      const answer = await call(`${fromAdminKubeconfig.url}/api/v1/namespaces`, {
        ca: pki.ca.cert,
        // A client certificate offered to the proxy is not what reaches the apiserver either.
        ...(clientCertificate
          ? {
              agent: new https.Agent({
                ca: pki.ca.cert,
                cert: Buffer.from(admin?.certData ?? '', 'base64'),
                key: Buffer.from(admin?.keyData ?? '', 'base64'),
              }),
            }
          : {}),
      });
      expect(answer.status).toBe(403);
      expect(status(answer).message).toContain(
        'User "system:anonymous" cannot list resource "namespaces"',
      );
    }
    const withToken = await call(`${fromAdminKubeconfig.url}/api/v1/namespaces/${ns}/configmaps`, {
      ca: pki.ca.cert,
      token: pluginToken,
    });
    expect(withToken.status).toBe(200);
  });
});

describe('TLS and tokens', () => {
  it('kubectl verifies the exposed certificate (IP SAN) with the minted kubeconfig and lists what the identity may do', async () => {
    const get = await kubectl(pluginKubeconfig, ['get', 'configmaps', '-o', 'name']);
    expect(get).toContain('configmap/before-watch');
    const canI = await kubectl(pluginKubeconfig, ['auth', 'can-i', '--list']);
    expect(canI).toMatch(/configmaps\s+\[\]\s+\[\]\s+\[get list watch\]/);

    const stranger = createCertificateAuthority({ commonName: 'another CA' });
    const wrongCa = join(cluster.dir, 'wrong-ca.kubeconfig');
    await mintKubeconfig({
      serviceAccount: `${ns}/plugin`,
      server: exposer.url,
      caFile: writeTemp('wrong-ca.crt', stranger.cert),
      output: wrongCa,
      client: cluster.admin,
    });
    const refused = await runKubectl(wrongCa, ['get', 'configmaps']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/x509: certificate signed by unknown authority/);
  });

  it('refuses an expired token and a token for another audience', async () => {
    const claims = jwtClaims(pluginToken);
    const now = Math.floor(Date.now() / 1000);
    const resign = (changes: Record<string, unknown>) =>
      signJwt({ ...claims, ...changes }, cluster.testSigningKey);
    const url = `${exposer.url}/api/v1/namespaces/${ns}/configmaps`;
    // The same claims signed with the test key are accepted: only what changes below matters.
    expect(
      (
        await call(url, {
          ca: pki.ca.cert,
          token: resign({ iat: now - 60, nbf: now - 60, exp: now + 600 }),
        })
      ).status,
    ).toBe(200);
    const expired = await call(url, {
      ca: pki.ca.cert,
      token: resign({ iat: now - 1200, nbf: now - 1200, exp: now - 600 }),
    });
    expect(expired.status).toBe(401);
    const otherAudience = await call(url, {
      ca: pki.ca.cert,
      token: resign({ aud: ['https://elsewhere.example'] }),
    });
    expect(otherAudience.status).toBe(401);
    const mintedForElsewhere = await mint(`${ns}/plugin`, {
      audience: ['https://elsewhere.example'],
    });
    expect((await call(url, { ca: pki.ca.cert, token: mintedForElsewhere })).status).toBe(401);
  });
});

describe('upgrades', () => {
  it('carries kubectl exec over WebSocket and over SPDY', async () => {
    await apply(cluster, [
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'shell', namespace: ns },
        spec: { nodeName: 'kwok-node-0', containers: [{ name: 'c', image: 'busybox' }] },
      },
    ]);
    const rootKubeconfig = join(cluster.dir, 'root.kubeconfig');
    await mintKubeconfig({
      serviceAccount: `${ns}/root`,
      server: exposer.url,
      caFile: pki.caFile,
      output: rootKubeconfig,
      client: cluster.admin,
    });
    await waitFor(
      async () => {
        const pod = await cluster.admin.get<V1Pod>(resources.pods, 'shell', {
          namespace: ns,
        });
        return pod.status?.phase === 'Running'
          ? { done: true, value: undefined }
          : { done: false, saw: pod.status?.phase ?? 'no phase' };
      },
      { description: 'pod shell to run on the kwok node' },
    );
    const exec = ['-n', ns, 'exec', 'shell', '--', 'sh', '-c', 'echo "through $0"'];
    const spdy = { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' };
    expect(await kubectl(rootKubeconfig, exec)).toBe('through sh\n');
    expect(await kubectl(rootKubeconfig, exec, undefined, spdy)).toBe('through sh\n');
    // An upgraded exchange is logged when its tunnel closes, which may be just after kubectl
    // has printed the output and exited.
    const upgraded = await waitFor(
      () => {
        const lines = logs.lines.filter(
          (l) => l.msg === 'access' && String(l.kind).startsWith('upgrade:'),
        );
        const kinds = lines.map((l) => String(l.kind));
        return Promise.resolve(
          kinds.includes('upgrade:websocket') && kinds.includes('upgrade:SPDY/3.1')
            ? { done: true as const, value: lines }
            : { done: false as const, saw: kinds.join(', ') || 'no upgrade logged' },
        );
      },
      { description: 'both upgrades in the access log' },
    );
    expect(upgraded.every((l) => l.status === 101)).toBe(true);

    const noUpgrades = await startExposer({ upgrades: false });
    const refusedKubeconfig = join(cluster.dir, 'no-upgrades.kubeconfig');
    await mintKubeconfig({
      serviceAccount: `${ns}/root`,
      server: noUpgrades.url,
      caFile: pki.caFile,
      output: refusedKubeconfig,
      client: cluster.admin,
    });
    const refused = await runKubectl(refusedKubeconfig, exec, undefined, spdy);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      'protocol upgrades (exec, attach, port-forward, WebSocket) are disabled on this proxy',
    );
  });

  it('carries a WebSocket watch whose events arrive while it stays open', async () => {
    const { hostname, port } = new URL(exposer.url);
    const ws = await openWebSocket(
      hostname,
      Number(port),
      `/api/v1/namespaces/${ns}/configmaps?watch=true`,
      { ca: pki.ca.cert, token: pluginToken },
    );
    try {
      expect(ws.head).toMatch(/^HTTP\/1\.1 101 /);
      await cluster.admin.create(resources.configMaps, configMap('over-websocket'));
      await waitFor(
        async () => {
          const message = await ws.nextMessage();
          return message.includes('"over-websocket"')
            ? { done: true, value: message }
            : { done: false, saw: message.slice(0, 80) };
        },
        { description: 'the ADDED event over the WebSocket' },
      );
    } finally {
      ws.close();
    }
  });
});

describe('operations', () => {
  it('logs one JSON access line per request and counts requests by code and method', async () => {
    await call(`${exposer.url}/version`, {
      ca: pki.ca.cert,
      token: pluginToken,
      headers: { 'User-Agent': 'slurm-plugin/1.0' },
    });
    const line = await waitFor(
      () => {
        const found = logs.lines.find(
          (l) => l.msg === 'access' && l.userAgent === 'slurm-plugin/1.0',
        );
        return Promise.resolve(
          found
            ? { done: true as const, value: found }
            : { done: false as const, saw: `${logs.lines.length} lines` },
        );
      },
      { description: 'the access line' },
    );
    expect(line).toMatchObject({
      method: 'GET',
      path: '/version',
      status: 200,
      remoteAddress: '127.0.0.1',
    });
    expect(line.bytes).toBeGreaterThan(0);
    expect(typeof line.durationMs).toBe('number');
    const metrics = await (await fetch(`${exposer.opsUrl ?? ''}/metrics`)).text();
    expect(metrics).toMatch(/kfx_exposer_requests_total\{code="200",method="GET"\} \d+/);
    expect(metrics).toMatch(/kfx_exposer_requests_total\{code="403",method="GET"\} \d+/);
    expect((await fetch(`${exposer.opsUrl ?? ''}/readyz`)).status).toBe(200);
  });
});

/** The Status object of an answer (apiserver's or the proxy's own). */
function status(answer: Answer): { kind: string; message: string } {
  const body = answer.json as { kind?: string; message?: string } | undefined;
  expect(body?.kind).toBe('Status');
  return { kind: body?.kind ?? '', message: body?.message ?? '' };
}

function writeTemp(name: string, content: string): string {
  const path = join(cluster.dir, name);
  writeFileSync(path, content);
  return path;
}
