// The door, against a real kube-apiserver (the package's shared plane, whose kwok node stands in
// for interLink's virtual node here; the remote node of the test bed runs the real thing in
// tooling/e2e): a token bound to a Pod on a remote node comes in, and the apiserver sees a
// short-lived token of the same ServiceAccount and Pod instead (its audit log names the
// credential); a token of a Pod inside the cluster, of a Pod that is gone, or not signed by the
// cluster, is refused at the door; a remote Pod's token past its own expiry (where the apiserver
// caps token lifetimes) keeps working while its Pod runs.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { resources } from '@kfx/kube-runtime/client';
import { waitFor } from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintToken } from '../index.js';
import type { RunningExposer, ServeOptions } from '../index.js';
import { auditEventFor, auditLogOf } from '../testing/audit-log.js';
import {
  apply,
  captureLogs,
  configMapReader,
  joinCluster,
  metricSample,
  proxyPki,
  startTestExposer,
  until,
  type CapturedLogs,
  type Cluster,
  type ProxyPki,
  interlinkValues,
} from '../testing/fixtures.js';
import { call, watch } from '../testing/https-client.js';
import { jwtClaims, signJwt } from '../testing/jwt.js';
import { openWebSocket } from '../testing/websocket.js';

const REMOTE_NODE = 'kwok-node-0';
/** 100 years, as interLink's virtual kubelet asks (this plane caps nothing). */
const HUNDRED_YEARS = 100 * 365 * 24 * 3600;

let cluster: Cluster;
let ns: string;
let pki: ProxyPki;
let logs: CapturedLogs;
const closers: (() => Promise<void>)[] = [];

const startExposer = (options: Partial<ServeOptions> = {}) =>
  startTestExposer(cluster, pki, closers, { logger: logs.logger, ...options });

/** The exposer with `REMOTE_NODE` as its remote node, and the plane's admin as its identity. */
const startDoor = (options: Partial<ServeOptions> = {}) =>
  startExposer({
    remoteNodes: [REMOTE_NODE],
    identityKubeconfig: cluster.env.kubeconfigPath,
    ...options,
  });

/** A Pod of ServiceAccount `plugin` on `node` (kwok's, or a node name that is not this plane's). */
const pod = (name: string, node: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns },
  spec: {
    serviceAccountName: 'plugin',
    nodeName: node,
    tolerations: [{ key: 'virtual-node.interlink/no-schedule', operator: 'Exists' }],
    containers: [{ name: 'job', image: 'busybox' }],
  },
});

/** A token of `plugin` bound to Pod `name`, as interLink's virtual kubelet requests it. */
const podToken = async (name: string) =>
  (
    await mintToken(cluster.admin, {
      namespace: ns,
      serviceAccount: 'plugin',
      expirationSeconds: HUNDRED_YEARS,
      pod: name,
    })
  ).token;

const configMaps = (exposer: RunningExposer, query = '') =>
  `${exposer.url}/api/v1/namespaces/${ns}/configmaps${query}`;

const messageOf = (json: unknown) => (json as { message?: string }).message ?? '';

beforeAll(async () => {
  cluster = await joinCluster('exposer-door');
  ns = cluster.namespace;
  await configMapReader(cluster, ns, 'plugin');
  await apply(cluster, [
    pod('remote-job', REMOTE_NODE),
    pod('short-job', REMOTE_NODE),
    pod('inside', 'a-node-inside'),
  ]);
  pki = proxyPki(cluster.dir);
  logs = captureLogs();
});

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await cluster.stop();
});

describe('a remote Pod comes in', () => {
  it('with a short-lived token of the same ServiceAccount and Pod in place of its own', async () => {
    const exposer = await startDoor();
    const token = await podToken('remote-job');
    const marker = `door=${randomBytes(6).toString('hex')}`;
    const answer = await call(configMaps(exposer, `?labelSelector=${marker}`), {
      ca: pki.ca.cert,
      token,
    });
    expect(answer.status).toBe(200);
    const event = await auditEventFor(auditLogOf(cluster.env.dir), marker);
    expect(event.user.username).toBe(`system:serviceaccount:${ns}:plugin`);
    const extra = event.user.extra ?? {};
    expect(extra['authentication.kubernetes.io/pod-name']).toEqual(['remote-job']);
    // The apiserver authenticated another credential than the Pod's own, long-lived one.
    const own = `JTI=${String(jwtClaims(token).jti)}`;
    expect(extra['authentication.kubernetes.io/credential-id']).toBeDefined();
    expect(extra['authentication.kubernetes.io/credential-id']).not.toContain(own);
    expect(
      await metricSample(exposer.opsUrl, 'kfx_exposer_pod_tokens_total{decision="exchanged"}'),
    ).toBeGreaterThan(0);
  });

  it('for watches and WebSocket upgrades too', async () => {
    const exposer = await startDoor();
    const token = await podToken('remote-job');
    const opened = await watch(configMaps(exposer, '?watch=true'), { ca: pki.ca.cert, token });
    opened.close();
    expect(opened.status).toBe(200);
    const { hostname, port } = new URL(exposer.url);
    const ws = await openWebSocket(
      hostname,
      Number(port),
      `/api/v1/namespaces/${ns}/configmaps?watch=true`,
      { ca: pki.ca.cert, token },
    );
    ws.close();
    expect(ws.head).toMatch(/^HTTP\/1\.1 101 /);
  });

  it('past its own expiry, as where the apiserver caps token lifetimes, while its Pod runs', async () => {
    const exposer = await startDoor();
    // The token interLink got, once the apiserver's cap has passed: signed by the cluster,
    // bound to the running Pod, expired.
    const claims = jwtClaims(await podToken('remote-job'));
    const now = Math.floor(Date.now() / 1000);
    const expired = signJwt(
      { ...claims, iat: now - 7200, nbf: now - 7200, exp: now - 3600 },
      cluster.testSigningKey,
    );
    const direct = await call(`${cluster.env.server}/api/v1/namespaces/${ns}/configmaps`, {
      ca: cluster.env.caCert,
      token: expired,
    });
    expect(direct.status).toBe(401);
    expect((await call(configMaps(exposer), { ca: pki.ca.cert, token: expired })).status).toBe(200);
  });
});

describe('the door refuses', () => {
  it('a token of a Pod inside the cluster, naming the Pod', async () => {
    const exposer = await startDoor();
    const answer = await call(configMaps(exposer), {
      ca: pki.ca.cert,
      token: await podToken('inside'),
    });
    expect(answer.status).toBe(403);
    expect(messageOf(answer.json)).toContain(
      `the token is bound to Pod ${ns}/inside, which runs on node a-node-inside inside the cluster`,
    );
    expect(logs.lines.some((line) => line.pod === `${ns}/inside`)).toBe(true);
    expect(
      await metricSample(
        exposer.opsUrl,
        'kfx_exposer_pod_tokens_total{decision="refused_in_cluster"}',
      ),
    ).toBeGreaterThan(0);
  });

  it('every Pod token when no remote node is configured, and lets other tokens pass', async () => {
    const exposer = await startExposer();
    const refused = await call(configMaps(exposer), {
      ca: pki.ca.cert,
      token: await podToken('remote-job'),
    });
    expect(refused.status).toBe(403);
    expect(messageOf(refused.json)).toContain('it has none (its remoteNodes option)');
    // A plugin's token, bound to no Pod, is the apiserver's to judge.
    const plugin = (
      await mintToken(cluster.admin, {
        namespace: ns,
        serviceAccount: 'plugin',
        expirationSeconds: 3600,
      })
    ).token;
    expect((await call(configMaps(exposer), { ca: pki.ca.cert, token: plugin })).status).toBe(200);
  });

  it('a token the cluster did not sign (401), and one whose Pod is gone (403, within seconds)', async () => {
    const exposer = await startDoor();
    const token = await podToken('short-job');
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const forged = signJwt(jwtClaims(token), privateKey);
    const refused = await call(configMaps(exposer), { ca: pki.ca.cert, token: forged });
    expect(refused.status).toBe(401);
    expect((await call(configMaps(exposer), { ca: pki.ca.cert, token })).status).toBe(200);
    await cluster.admin.delete(resources.pods, 'short-job', {
      namespace: ns,
      gracePeriodSeconds: 0,
    });
    const gone = await waitFor(
      async () => {
        const answer = await call(configMaps(exposer), { ca: pki.ca.cert, token });
        return answer.status === 403
          ? { done: true, value: messageOf(answer.json) }
          : { done: false, saw: `HTTP ${String(answer.status)}` };
      },
      { description: "the door to refuse the deleted Pod's token", timeoutMs: 30_000 },
    );
    expect(gone).toContain(`Pod ${ns}/short-job`);
    expect(gone).toContain('which is gone');
  });

  it('nothing of the kind with podTokens: any (Pod tokens pass as they are)', async () => {
    const exposer = await startExposer({ podTokens: 'any' });
    const answer = await call(configMaps(exposer), {
      ca: pki.ca.cert,
      token: await podToken('inside'),
    });
    expect(answer.status).toBe(200);
  });
});

describe("serve watches interLink's copy of its CA", () => {
  it('as a metric: 1 while the copy verifies the certificate served, 0 once it does not', async () => {
    const values = interlinkValues;
    await apply(cluster, [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'interlink-values', namespace: ns },
        data: { 'values.yaml': values(pki.ca.cert) },
      },
    ]);
    const exposer = await startExposer({
      interlinkConfig: `${ns}/interlink-values`,
      identityKubeconfig: cluster.env.kubeconfigPath,
    });
    const label = `{config="${ns}/interlink-values"}`;
    const matches = () =>
      metricSample(exposer.opsUrl, `kfx_exposer_interlink_ca_copy_matches${label}`);
    await until('the copy to be compared', async () => (await matches()) === 1);
    expect(
      await metricSample(
        exposer.opsUrl,
        `kfx_exposer_interlink_ca_copy_expiry_timestamp_seconds${label}`,
      ),
    ).toBeGreaterThan(Date.now() / 1000);
    // Another exposer whose certificate the copy does not verify.
    const other = proxyPki(cluster.dir, { name: 'renewed' });
    const renewed = await startTestExposer(cluster, other, closers, {
      logger: logs.logger,
      interlinkConfig: `${ns}/interlink-values`,
      identityKubeconfig: cluster.env.kubeconfigPath,
    });
    await until('the stale copy to be reported', async () => {
      const text = await (await fetch(`${renewed.opsUrl ?? ''}/metrics`)).text();
      return text.includes(`kfx_exposer_interlink_ca_copy_matches${label} 0\n`);
    });
    expect(
      logs.lines.some((line) =>
        String(line.msg).includes('does not verify the certificate served'),
      ),
    ).toBe(true);
  });
});
