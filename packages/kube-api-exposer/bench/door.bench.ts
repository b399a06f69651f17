// Benchmark of the door: what a remote Pod's request costs when its long-lived token is checked
// and exchanged for a short-lived one of the same ServiceAccount and Pod, against the same token
// passed through as it is (the door off) and against the apiserver reached directly, side by side
// in one run and interleaved, on a real kube-apiserver (a kwok node stands in for the remote
// one). Each request is a GET of one ConfigMap, one at a time; the added latency of a path is the
// median (and p99) of its paired differences with the direct request of the same round. The
// exchange's own TokenRequest happens once per Pod and lifetime (10 minutes), outside the rounds;
// the first request after it is timed apart. Run with `pnpm run bench:door` (builds first).
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mintToken } from '@kfx/kube-api-exposer';
import { KubeClient } from '@kfx/kube-runtime/client';
import { applyManifests, startControlPlane } from '@kfx/testenv';
import type { KubernetesObject } from '@kubernetes/client-node';
import { pino } from 'pino';
import { percentile, timedGet, type Target } from './measure.ts';
import { startProxyProcess, writeServingFiles } from './proxy-process.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 500);
const PATH = '/api/v1/namespaces/bench/configmaps/settings';

const dir = mkdtempSync(join(tmpdir(), 'kfx-exposer-door-bench-'));
const log = (line: string) => {
  process.stdout.write(`${line}\n`);
};

log(`kfx expose-api door benchmark (Node ${process.versions.node}), ${REQUESTS} requests per path`);
log('starting a control plane with a kwok node (the remote node)…');
const env = await startControlPlane({ components: ['kwok'] });
const admin = KubeClient.fromKubeConfig(env.kubeConfig, { logger: pino({ level: 'silent' }) });
const stops: (() => Promise<void>)[] = [];
try {
  await applyManifests(env.kubeConfig, [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'job', namespace: 'bench' } },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: 'bench' },
      data: { replicas: '3' },
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'reader', namespace: 'bench' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'reader', namespace: 'bench' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'job', namespace: 'bench' }],
    },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'remote-job', namespace: 'bench' },
      spec: {
        serviceAccountName: 'job',
        nodeName: 'kwok-node-0',
        containers: [{ name: 'job', image: 'busybox' }],
      },
    },
  ] as KubernetesObject[]);
  // The token interLink's virtual kubelet requests: bound to the Pod, 100 years, no audience.
  const { token } = await mintToken(admin, {
    namespace: 'bench',
    serviceAccount: 'job',
    expirationSeconds: 100 * 365 * 24 * 3600,
    pod: 'remote-job',
  });

  const { files, ca: caCert } = writeServingFiles(dir, env.caCert);
  const exposer = async (name: string, options: object): Promise<Target> => {
    const proxy = await startProxyProcess('kfx-proxy.ts', {
      files,
      upstream: env.server,
      accessLog: join(dir, `${name}.log`),
      env: { EXPOSER_OPTIONS: JSON.stringify(options) },
    });
    stops.push(() => proxy.stop());
    return target(name, proxy.url, caCert);
  };
  const exchange = await exposer('door (exchange)', {
    remoteNodes: ['kwok-node-0'],
    identityKubeconfig: env.kubeconfigPath,
  });
  const targets: Target[] = [
    target('direct', env.server, env.caCert),
    await exposer('door off', { podTokens: 'any' }),
    exchange,
  ];

  // The exchange's first request: its TokenRequest (and the signing keys, the Pod) included.
  const firstExchange = await timedGet(exchange, PATH, token);
  log('warming up; then the paths interleaved, one request at a time…');
  for (const t of targets) for (let i = 0; i < 50; i++) await timedGet(t, PATH, token);
  const latency = new Map<string, number[]>(targets.map((t) => [t.name, []]));
  for (let i = 0; i < REQUESTS; i++) {
    for (const t of targets) latency.get(t.name)?.push(await timedGet(t, PATH, token));
  }

  const direct = latency.get('direct') ?? [];
  const added = (name: string, p: number) =>
    percentile(
      (latency.get(name) ?? []).map((ms, i) => ms - (direct[i] ?? 0)),
      p,
    );
  const f = (n: number) => (Number.isFinite(n) ? n.toFixed(3) : 'n/a');
  log('');
  log('path               p50 (ms)   p99 (ms)   added p50   added p99');
  for (const t of targets) {
    const own = latency.get(t.name) ?? [];
    const isDirect = t.name === 'direct';
    log(
      `${t.name.padEnd(18)} ${f(percentile(own, 50)).padStart(8)}   ${f(percentile(own, 99)).padStart(8)}   ${(isDirect ? '—' : f(added(t.name, 50))).padStart(9)}   ${(isDirect ? '—' : f(added(t.name, 99))).padStart(9)}`,
    );
  }
  log('');
  log('ratios:');
  log(
    `  added latency, exchange / door off: p50 ${f(added('door (exchange)', 50) / added('door off', 50))}, p99 ${f(added('door (exchange)', 99) / added('door off', 99))}`,
  );
  log(
    `  latency, exchange / direct: p50 ${f(percentile(latency.get('door (exchange)') ?? [], 50) / percentile(direct, 50))}, p99 ${f(percentile(latency.get('door (exchange)') ?? [], 99) / percentile(direct, 99))}`,
  );
  log(`  first request through the door (its TokenRequest included): ${f(firstExchange)} ms`);
} finally {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
  admin.close();
  await env.stop();
  rmSync(dir, { recursive: true, force: true });
}

function target(name: string, url: string, ca: string): Target {
  return { name, url, ca, agent: new https.Agent({ keepAlive: true, maxSockets: 1, ca }) };
}
