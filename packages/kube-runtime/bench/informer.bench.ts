// Benchmark (not a test): informer memory and throughput on a real control plane, and the
// apply skip path. Run with `pnpm run bench` (builds first; this file imports the built package).
//
// 1. N ConfigMaps exist; an informer lists and caches them: time to sync, objects/s, heap per
//    cached object, side by side with an informer whose transform drops managedFields.
// 2. While the informer watches, M updates are written as fast as the apiserver takes them:
//    events/s delivered to the handlers against writes/s, and the lag after the last write.
// 3. 1,000 applies of an unchanged object: writes made (target 0) and time per apply for a
//    plain server-side apply, applyObject reading with GET, and applyObject reading a cache.
import { startControlPlane } from '@kfx/testenv';
import { inParallel, KubeClient, resources, type KubeObject } from '@kfx/kube-runtime/client';
import { createInformer } from '@kfx/kube-runtime/informer';
import { applyObject } from '@kfx/kube-runtime/controller';
import { pino } from 'pino';

const N = Number(process.env.BENCH_OBJECTS ?? 5000);
const M = Number(process.env.BENCH_UPDATES ?? 2000);
const APPLIES = 1000;
const NAMESPACE = 'bench';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const heapUsed = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const indices = (count: number) => [...Array(count).keys()];

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const rate = (count: number, ms: number) =>
  `${Math.round((count * 1000) / ms).toLocaleString('en')}/s`;

const logger = pino({ level: 'warn' });
console.log(`starting a control plane; ${N} ConfigMaps, ${M} updates, ${APPLIES} applies`);
const env = await startControlPlane();
const client = KubeClient.fromKubeConfig(env.kubeConfig, { logger });
try {
  await client.create(resources.namespaces, { metadata: { name: NAMESPACE } });
  let started = performance.now();
  await inParallel(indices(N), 32, (i) =>
    client.apply(
      resources.configMaps,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: `cm-${i}`,
          namespace: NAMESPACE,
          labels: { bench: 'yes', shard: String(i % 10) },
        },
        data: {
          HTTPS_PROXY: 'http://proxy.example:3128',
          NO_PROXY: '.svc,.cluster.local,10.0.0.0/8',
          index: String(i),
        },
      },
      { fieldManager: 'bench', force: true },
    ),
  );
  console.log(
    `created ${N} ConfigMaps in ${seconds(performance.now() - started)} (${rate(N, performance.now() - started)})`,
  );

  // 1. Sync time and memory, full objects and without managedFields (best time of two runs).
  const sync = async (transform?: (o: KubeObject) => KubeObject) => {
    const before = heapUsed();
    const informer = createInformer<KubeObject>(client, resources.configMaps, {
      namespace: NAMESPACE,
      logger,
      resyncMs: 0,
      ...(transform ? { transform } : {}),
    });
    const t0 = performance.now();
    informer.start();
    await informer.waitForSync();
    const ms = performance.now() - t0;
    const bytes = (heapUsed() - before) / informer.store.size;
    return { informer, ms, bytes };
  };
  const dropManagedFields = (o: KubeObject) => {
    if (o.metadata) delete o.metadata.managedFields;
    return o;
  };
  type Run = Awaited<ReturnType<typeof sync>>;
  const runs: { fullRun: Run; slimRun: Run }[] = [];
  for (let i = 0; i < 2; i++) {
    const fullRun = await sync();
    await fullRun.informer.stop();
    const slimRun = await sync(dropManagedFields);
    await slimRun.informer.stop();
    runs.push({ fullRun, slimRun });
  }
  const best = (pick: (r: { fullRun: Run; slimRun: Run }) => Run) =>
    runs.map(pick).reduce((a, b) => (b.ms < a.ms ? b : a));
  const fullBest = best((r) => r.fullRun);
  const slimBest = best((r) => r.slimRun);
  console.log('\n1. list + cache');
  console.log(
    `   full objects:          synced ${N} in ${seconds(fullBest.ms)} (${rate(N, fullBest.ms)}), ${Math.round(fullBest.bytes)} B heap per object`,
  );
  console.log(
    `   without managedFields: synced ${N} in ${seconds(slimBest.ms)} (${rate(N, slimBest.ms)}), ${Math.round(slimBest.bytes)} B heap per object`,
  );
  console.log(
    `   heap ratio full / without managedFields: ${(fullBest.bytes / slimBest.bytes).toFixed(2)}`,
  );
  const full = await sync();

  // 2. Watch throughput while the apiserver takes writes as fast as it can.
  const rvBefore = full.informer.status().resourceVersion;
  let seen = 0;
  let lastEventAt = 0;
  let allSeen: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (allSeen = resolve));
  full.informer.on('update', (o, old) => {
    if (o === old) return;
    seen++;
    lastEventAt = performance.now();
    if (seen === M) allSeen();
  });
  started = performance.now();
  await inParallel(indices(M), 32, (i) =>
    client.patch(
      resources.configMaps,
      `cm-${i % N}`,
      { data: { index: `updated-${i}` } },
      { namespace: NAMESPACE },
    ),
  );
  const writesDone = performance.now();
  await done;
  console.log('\n2. watch');
  console.log(
    `   ${M} updates written in ${seconds(writesDone - started)} (${rate(M, writesDone - started)})`,
  );
  const lag = Math.max(0, Math.round(lastEventAt - writesDone));
  console.log(
    `   ${seen} events delivered to the handlers in ${seconds(lastEventAt - started)} (${rate(seen, lastEventAt - started)}); the last one ${lag} ms after the last write returned`,
  );

  // 2b. The same updates replayed from the apiserver's watch cache, as fast as it sends them:
  // the decoding capacity of the watch path the informer uses.
  let replayed = 0;
  const t1 = performance.now();
  for await (const event of client.watch(resources.configMaps, {
    namespace: NAMESPACE,
    resourceVersion: rvBefore,
  })) {
    if (event.type === 'MODIFIED' && ++replayed === M) break;
  }
  const replayMs = performance.now() - t1;
  console.log(
    `   the same ${M} updates replayed from the watch cache: ${seconds(replayMs)} (${rate(M, replayMs)})`,
  );

  // 3. The apply skip path.
  const desired = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cm-0', namespace: NAMESPACE, labels: { bench: 'yes', shard: '0' } },
    data: {
      HTTPS_PROXY: 'http://proxy.example:3128',
      NO_PROXY: '.svc,.cluster.local,10.0.0.0/8',
      index: 'steady',
    },
  };
  await applyObject(client, desired, { fieldManager: 'bench', ref: resources.configMaps });
  await new Promise((resolve) => setTimeout(resolve, 500));
  const requests = async () => {
    const text = await client.registry.getSingleMetricAsString('kfx_kube_api_requests_total');
    const count = (method: string) =>
      text
        .split('\n')
        .filter((l) => l.includes(`method="${method}"`))
        .reduce((s, l) => s + Number(l.split(' ').at(-1)), 0);
    return { writes: count('PATCH') + count('POST') + count('PUT'), reads: count('GET') };
  };
  const measure = async (name: string, apply: () => Promise<unknown>) => {
    const before = await requests();
    const t0 = performance.now();
    for (let i = 0; i < APPLIES; i++) await apply();
    const ms = performance.now() - t0;
    const after = await requests();
    return { name, ms, writes: after.writes - before.writes, reads: after.reads - before.reads };
  };
  const rows = [
    await measure('server-side apply every time', () =>
      client.apply(resources.configMaps, desired, { fieldManager: 'bench', force: true }),
    ),
    await measure('applyObject, live object by GET', () =>
      applyObject(client, desired, { fieldManager: 'bench', ref: resources.configMaps }),
    ),
    await measure('applyObject, live object from cache', () =>
      applyObject(client, desired, {
        fieldManager: 'bench',
        ref: resources.configMaps,
        cache: full.informer.store,
      }),
    ),
  ];
  console.log(`\n3. ${APPLIES} applies of an unchanged ConfigMap`);
  for (const row of rows) {
    console.log(
      `   ${row.name.padEnd(38)} writes ${String(row.writes).padStart(5)}  reads ${String(row.reads).padStart(5)}  ${(row.ms / APPLIES).toFixed(3)} ms/apply`,
    );
  }
  const [always, , cached] = rows;
  if (always && cached)
    console.log(
      `   time ratio apply-every-time / cached skip: ${(always.ms / cached.ms).toFixed(0)}x`,
    );
  await full.informer.stop();
} finally {
  client.close();
  await env.stop();
}
