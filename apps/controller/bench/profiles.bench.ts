// Benchmark (not a test) of kfx-controller on a real control plane, run with `pnpm run bench`
// (builds first; this file imports the built packages, and runs the built kfx-controller):
//
// 1. Raw loop: N Profiles, their namespaces (owned by them, as the upstream Kubeflow profile
//    controller makes them) and their ResourceQuota and LimitRange created by a tight loop of
//    POSTs (C at a time): what the API server can take on this machine. Also the same loop with
//    server-side applies instead of POSTs, the floor for any controller that applies.
// 2. Controller: the same N Profiles and namespaces created the same way while the controller
//    (own process, default settings) makes their objects: time until every object exists, as a
//    ratio to (1). Target ≤ 1.25×.
// 3. Resyncs: the controller left alone with a short resync period: writes made (target 0),
//    reconciles done, and the controller's peak RSS (target ≤ 150 MiB at 500 Profiles).
// (1) and (2) run side by side for several rounds, since other work on the machine moves the
// figures; the median ratio is the result. The controller is the built kfx-controller binary
// (dist/main.js of this app), without leader election so that every write counted is a
// reconcile's.
import { readFileSync } from 'node:fs';
import { inParallel, KubeClient, resources, type KubeObject } from '@kfx/kube-runtime/client';
import { profileNamespace, startControlPlane } from '@kfx/testenv';
import { pino } from 'pino';
import {
  controllerConfig,
  startController,
  stopAll,
  type Controller,
} from './controller-process.ts';
import { cpu, cpuDelta } from './cpu.ts';
import { metricSum, profileBody, rawObjects, refOf, writeMethods } from './workload.ts';

const indices = (count: number) => [...Array(count).keys()];

const N = Number(process.env.BENCH_PROFILES ?? 500);
const C = Number(process.env.BENCH_CONCURRENCY ?? 16);
const WORKERS = process.env.BENCH_WORKERS;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RESYNC_SECONDS = Number(process.env.BENCH_RESYNC_SECONDS ?? 30);
const RESYNC_MINUTES = Number(process.env.BENCH_RESYNC_MINUTES ?? 5);

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const logger = pino({ level: 'warn' });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
console.log(
  `${N} Profiles, ${C} creates at a time, ${ROUNDS} rounds, controller workers ${WORKERS ?? 'default'}`,
);
const env = await startControlPlane();
const client = KubeClient.fromKubeConfig(env.kubeConfig, { logger, timeoutMs: 120_000 });
const configFile = controllerConfig(
  `${WORKERS ? `workers: ${WORKERS}\n` : ''}resyncSeconds: ${RESYNC_SECONDS}\nlogLevel: warn\n`,
);

/** A Profile, then its namespace as the upstream Kubeflow profile controller makes it. */
async function createProfile(name: string): Promise<KubeObject> {
  const profile = await client.create<KubeObject>(resources.profiles, profileBody(name));
  await client.create(resources.namespaces, profileNamespace(profile));
  return profile;
}

/** Creates the Profiles and their objects: POSTs, or server-side applies with `apply`. */
async function rawLoop(prefix: string, apply = false): Promise<number> {
  const cpuBefore = cpu(env.dir);
  const started = performance.now();
  await inParallel(indices(N), C, async (i) => {
    const profile = await createProfile(`${prefix}-${i}`);
    for (const object of rawObjects(profile)) {
      if (apply) {
        await client.apply(refOf(object.kind), object, { fieldManager: 'bench', force: true });
      } else {
        await client.create(refOf(object.kind), object);
      }
    }
  });
  const ms = performance.now() - started;
  console.log(
    `  ${apply ? 'raw applies' : 'raw POSTs  '}: ${seconds(ms)}  (${cpuDelta(cpuBefore, cpu(env.dir))})`,
  );
  // Gone before a controller starts, so that it never sees them.
  await inParallel(indices(N), C, (i) => client.delete(resources.profiles, `${prefix}-${i}`));
  return ms;
}

/** Profiles created while the controller runs: time until all their objects exist. */
async function controllerRun(controller: Controller, prefix: string): Promise<number> {
  const createdBefore = metricSum(
    await controller.metrics(),
    'kfx_profile_controller_object_writes_total',
    (l) => l.includes('action="created"'),
  );
  const cpuBefore = cpu(env.dir);
  const started = performance.now();
  const creating = inParallel(indices(N), C, (i) => createProfile(`${prefix}-${i}`));
  let objectsAt = 0;
  while (!objectsAt) {
    const created = metricSum(
      await controller.metrics(),
      'kfx_profile_controller_object_writes_total',
      (l) => l.includes('action="created"'),
    );
    if (created - createdBefore >= 2 * N) objectsAt = performance.now() - started;
    else await sleep(50);
  }
  const cpuObjects = cpu(env.dir);
  await creating;
  // Status trails the objects; count the Profiles whose condition is written.
  for (;;) {
    const profiles = await client.list<KubeObject & { status?: { conditions?: unknown[] } }>(
      resources.profiles,
    );
    const done = profiles.items.filter(
      (p) => p.metadata?.name?.startsWith(`${prefix}-`) && p.status?.conditions?.length,
    );
    if (done.length >= N) break;
    await sleep(200);
  }
  const statusAt = performance.now() - started;
  console.log(
    `  controller : ${seconds(objectsAt)}  (${cpuDelta(cpuBefore, cpuObjects)}; every status by ${seconds(statusAt)})`,
  );
  return objectsAt;
}

try {
  const prefix = (what: string, round: number) => `${what}${round}`;
  const ratios: number[] = [];
  const applyRatios: number[] = [];
  let last: Controller | undefined;
  for (let round = 0; round < ROUNDS; round++) {
    console.log(`round ${round + 1}:`);
    const post = await rawLoop(prefix('post', round));
    const apply = await rawLoop(prefix('apply', round), true);
    const controller = await startController(env.kubeconfigPath, configFile);
    const objects = await controllerRun(controller, prefix('ctl', round));
    ratios.push(objects / post);
    applyRatios.push(objects / apply);
    console.log(
      `  ratio ${(objects / post).toFixed(2)}x the POST loop, ${(objects / apply).toFixed(2)}x the apply loop`,
    );
    if (round < ROUNDS - 1) {
      controller.stop();
      // Leave the next round a cluster of N Profiles, as if these had never been.
      const names = Array.from({ length: N }, (_, i) => `${prefix('ctl', round)}-${i}`);
      await inParallel(indices(N), C, async (i) => {
        const namespace = names[i] ?? '';
        await client.delete(resources.profiles, namespace);
        await client.delete(resources.resourceQuotas, 'quotas', { namespace });
        await client.delete(resources.limitRanges, 'default-container-limits', { namespace });
      });
    } else {
      last = controller;
    }
  }
  if (!last) throw new Error('no rounds');

  await sleep(5000);
  const before = await last.metrics();
  console.log(`resyncs: ${RESYNC_MINUTES} min with a resync every ${RESYNC_SECONDS} s ...`);
  await sleep(RESYNC_MINUTES * 60_000);
  const after = await last.metrics();
  const delta = (name: string, filter?: (labels: string) => boolean) =>
    metricSum(after, name, filter) - metricSum(before, name, filter);
  const writes = delta('kfx_kube_api_requests_total', writeMethods);
  const reconciles = delta('kfx_controller_reconcile_total');
  const status = readFileSync(`/proc/${last.pid}/status`, 'utf8');
  const mib = (field: string) =>
    (Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024).toFixed(0);
  last.stop();

  console.log('\nresult');
  console.log(
    `  objects of ${N} Profiles, controller vs raw POST loop: median ${median(ratios).toFixed(2)}x (target <= 1.25x; rounds ${ratios.map((r) => r.toFixed(2)).join(', ')})`,
  );
  console.log(
    `  controller vs raw server-side-apply loop: median ${median(applyRatios).toFixed(2)}x (rounds ${applyRatios.map((r) => r.toFixed(2)).join(', ')})`,
  );
  console.log(
    `  writes during ${RESYNC_MINUTES} min of resyncs: ${writes} (target 0), reconciles: ${reconciles}`,
  );
  console.log(
    `  controller peak RSS: ${mib('VmHWM')} MiB (target <= 150), at the end ${mib('VmRSS')} MiB`,
  );
} finally {
  stopAll();
  client.close();
  await env.stop();
}
