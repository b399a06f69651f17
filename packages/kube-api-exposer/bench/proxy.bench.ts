// Benchmark: the apiserver reached directly, through kfx expose-api, and through nginx (the
// interLink guide's recipe, and nginx tuned for an API), side by side in one run against a real
// kube-apiserver: list latency (one request at a time), list throughput (several callers) and
// watch-event latency (one watch per path open at once, each event timed on every path).
// Run with `pnpm run bench` (builds first). Prints a table and the ratios; asserts nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import type { ClientRequest } from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mintKubeconfig } from '@kfx/kube-api-exposer';
import { KubeClient, resources } from '@kfx/kube-runtime/client';
import { applyManifests, freePort, startControlPlane } from '@kfx/testenv';
import type { KubernetesObject } from '@kubernetes/client-node';
import { pino } from 'pino';
import { percentile, throughput, timedGet, type Target } from './measure.ts';
import { nginxVersion, startNginx, type RunningNginx } from './nginx.ts';
import { startProxyProcess, writeServingFiles, type ProxyFiles } from './proxy-process.ts';

const LIST_REQUESTS = Number(process.env.BENCH_LIST_REQUESTS ?? 300);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CALLERS = 8;
const ROUNDS = 4;
const EVENTS = Number(process.env.BENCH_EVENTS ?? 200);
const OBJECTS = 100;
const LIST_PATH = '/api/v1/namespaces/bench/configmaps?labelSelector=bench%3Dlist';

const dir = mkdtempSync(join(tmpdir(), 'kfx-exposer-bench-'));
const log = (line: string) => {
  process.stdout.write(`${line}\n`);
};
const nginx = nginxVersion();
log(`kfx expose-api benchmark (Node ${process.versions.node}; nginx ${nginx ?? 'not installed'})`);
if (nginx === undefined) {
  log('nginx is not installed (apt-get install -y nginx-light): its rows are skipped.');
}

log('starting a control plane…');
const env = await startControlPlane();
const admin = KubeClient.fromKubeConfig(env.kubeConfig, { logger: pino({ level: 'silent' }) });
const stops: (() => Promise<void>)[] = [];
try {
  await applyManifests(env.kubeConfig, [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'reader', namespace: 'bench' } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'reader', namespace: 'bench' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'reader', namespace: 'bench' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: 'bench' }],
    },
  ] as KubernetesObject[]);
  for (let i = 0; i < OBJECTS; i++) {
    await admin.create(resources.configMaps, {
      metadata: { name: `list-${i}`, namespace: 'bench', labels: { bench: 'list' } },
      data: { 'settings.yaml': `replicas: ${i}\n${'key: value\n'.repeat(20)}` },
    });
  }
  const { token } = (
    await mintKubeconfig({ serviceAccount: 'bench/reader', server: env.server, client: admin })
  ).token;

  const { files, ca: caCert } = writeServingFiles(dir, env.caCert);

  const targets: Target[] = [
    target('direct', env.server, env.caCert),
    target('kfx expose-api', await startNodeProxy('kfx-proxy.ts', files, stops), caCert),
    target('node:https floor', await startNodeProxy('node-floor-proxy.ts', files, stops), caCert),
  ];
  if (nginx !== undefined) {
    for (const variant of ['recipe', 'tuned'] as const) {
      const running: RunningNginx = await startNginx({
        dir,
        variant,
        port: await freePort(),
        upstream: env.server,
        certFile: files.cert,
        keyFile: files.key,
      });
      stops.push(() => running.stop());
      targets.push(target(`nginx (${variant})`, running.url, caCert));
    }
  }

  log(
    `warming up; then ${LIST_REQUESTS} list requests per path, one at a time, paths interleaved…`,
  );
  for (const t of targets) for (let i = 0; i < 30; i++) await timedGet(t, LIST_PATH, token);
  const latency = new Map<string, number[]>(targets.map((t) => [t.name, []]));
  for (let i = 0; i < LIST_REQUESTS; i++) {
    for (const t of targets) latency.get(t.name)?.push(await timedGet(t, LIST_PATH, token));
  }

  log(
    `throughput: ${CALLERS} callers, ${ROUNDS} rounds of ${SECONDS / ROUNDS} s per path, interleaved…`,
  );
  const rates = new Map<string, number[]>(targets.map((t) => [t.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const t of targets)
      rates.get(t.name)?.push(await throughput(t, LIST_PATH, token, CALLERS, SECONDS / ROUNDS));
  }

  log(`watch: ${EVENTS} events, one watch per path open at the same time…`);
  const arrivals = await watchEvents(targets, token);

  const direct = latency.get('direct') ?? [];
  const addedList = (name: string) => {
    const own = latency.get(name) ?? [];
    return percentile(
      own.map((ms, i) => ms - (direct[i] ?? 0)),
      50,
    );
  };
  const addedWatch = (name: string, p: number) => {
    const own = arrivals.get(name) ?? new Map<string, number>();
    const base = arrivals.get('direct') ?? new Map<string, number>();
    const deltas = [...own].map(([event, at]) => at - (base.get(event) ?? at));
    return percentile(deltas, p);
  };
  const rate = (name: string) => (rates.get(name) ?? []).reduce((a, b) => a + b, 0) / ROUNDS;
  const f = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

  log('');
  log(
    `list of ${OBJECTS} ConfigMaps (${await listBytes(targets[0], token)} bytes), watch events on ConfigMaps`,
  );
  log(
    'path              list p50  list p99  added p50   req/s (8 callers)   watch added p50  p99 (ms)',
  );
  for (const t of targets) {
    const own = latency.get(t.name) ?? [];
    log(
      `${t.name.padEnd(17)} ${f(percentile(own, 50)).padStart(8)}  ${f(percentile(own, 99)).padStart(8)}  ${(t.name === 'direct' ? '—' : f(addedList(t.name))).padStart(9)}   ${f(rate(t.name), 0).padStart(17)}   ${(t.name === 'direct' ? '—' : f(addedWatch(t.name, 50))).padStart(15)}  ${(t.name === 'direct' ? '—' : f(addedWatch(t.name, 99))).padStart(8)}`,
    );
  }
  log('');
  log('ratios (lower is better for latency):');
  for (const variant of ['recipe', 'tuned']) {
    const name = `nginx (${variant})`;
    if (!latency.has(name)) continue;
    log(
      `  added list latency, kfx / ${name}: ${f(addedList('kfx expose-api') / addedList(name))} (target ≤ 1.2)`,
    );
    log(`  list throughput, kfx / ${name}: ${f(rate('kfx expose-api') / rate(name))}`);
    log(
      `  watch added p50, kfx / ${name}: ${f(addedWatch('kfx expose-api', 50) / addedWatch(name, 50))}`,
    );
  }
  log(
    `  added list latency, kfx / node:https floor: ${f(addedList('kfx expose-api') / addedList('node:https floor'))}`,
  );
  if (latency.has('nginx (tuned)')) {
    log(
      `  added list latency, node:https floor / nginx (tuned): ${f(addedList('node:https floor') / addedList('nginx (tuned)'))}`,
    );
  }
  log(`  list throughput, kfx / direct: ${f(rate('kfx expose-api') / rate('direct'))}`);
  log(
    `  watch events through kfx: ${f(addedWatch('kfx expose-api', 50))} ms added at p50, ${f(addedWatch('kfx expose-api', 99))} ms at p99 (target < 5 ms)`,
  );
} finally {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
  admin.close();
  await env.stop();
  rmSync(dir, { recursive: true, force: true });
}

function target(name: string, url: string, ca: string): Target {
  return { name, url, ca, agent: new https.Agent({ keepAlive: true, maxSockets: CALLERS, ca }) };
}

/** Starts a proxy script of this folder in its own process; resolves with the URL it prints. */
async function startNodeProxy(
  script: string,
  files: ProxyFiles,
  stopList: (() => Promise<void>)[],
): Promise<string> {
  const proxy = await startProxyProcess(script, {
    files,
    upstream: env.server,
    accessLog: join(dir, 'kfx-access.log'),
  });
  stopList.push(() => proxy.stop());
  return proxy.url;
}

async function listBytes(t: Target | undefined, token: string): Promise<number> {
  if (t === undefined) return 0;
  return new Promise((resolve, reject) => {
    https
      .get(
        `${t.url}${LIST_PATH}`,
        { ca: t.ca, headers: { Authorization: `Bearer ${token}` } },
        (response) => {
          let bytes = 0;
          response.on('data', (chunk: Buffer) => (bytes += chunk.length));
          response.on('end', () => {
            resolve(bytes);
          });
        },
      )
      .on('error', reject);
  });
}

/** Opens one watch per path, creates EVENTS ConfigMaps, returns when each path saw each one. */
async function watchEvents(
  all: Target[],
  token: string,
): Promise<Map<string, Map<string, number>>> {
  const list = await admin.list(resources.configMaps, {
    namespace: 'bench',
    labelSelector: 'bench=watch',
  });
  const path = `/api/v1/namespaces/bench/configmaps?watch=true&labelSelector=bench%3Dwatch&resourceVersion=${list.metadata.resourceVersion ?? ''}`;
  const arrivals = new Map<string, Map<string, number>>(all.map((t) => [t.name, new Map()]));
  const requests = all.map(
    (t) =>
      new Promise<ClientRequest>((resolve, reject) => {
        const request = https.get(
          `${t.url}${path}`,
          { ca: t.ca, agent: false, headers: { Authorization: `Bearer ${token}` } },
          (response) => {
            if (response.statusCode !== 200)
              log(`  the watch through ${t.name} answered HTTP ${response.statusCode ?? 0}`);
            let buffered = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => {
              const at = performance.now();
              buffered += chunk;
              let newline: number;
              while ((newline = buffered.indexOf('\n')) >= 0) {
                const line = buffered.slice(0, newline);
                buffered = buffered.slice(newline + 1);
                const event = JSON.parse(line) as {
                  type: string;
                  object: { metadata: { name: string } };
                };
                if (event.type === 'ADDED')
                  arrivals.get(t.name)?.set(event.object.metadata.name, at);
              }
            });
          },
        );
        request.on('error', reject);
        // nginx with response buffering holds even the head back until data flows: do not wait
        // for heads, only for the requests to be sent.
        request.on('finish', () => {
          resolve(request);
        });
      }),
  );
  const open = await Promise.all(requests);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  for (let i = 0; i < EVENTS; i++) {
    await admin.create(resources.configMaps, {
      metadata: { name: `event-${i}`, namespace: 'bench', labels: { bench: 'watch' } },
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const deadline = Date.now() + 30_000;
  while ([...arrivals.values()].some((seen) => seen.size < EVENTS) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  for (const request of open) request.destroy();
  for (const [name, seen] of arrivals) {
    if (seen.size < EVENTS)
      log(`  ${name} saw ${seen.size} of ${EVENTS} events within 30 s of the last one`);
  }
  return arrivals;
}
