// Benchmark of the real node side by side with kwok, in one run: what a test pays for pods that
// really run. For each, rounds of: control plane start until the node is Ready, one pod from
// creation to Running, ten pods at once to all Running, and the memory of the node's processes
// (kwok's one process; containerd, shims, pause, kubelet for the real node) idle and with the
// ten pods. Prints medians and the ratio real/kwok.
//   node bench/node.bench.ts [--runs N]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { realNodeSupport, startControlPlane, waitFor, type ControlPlane } from '@kfx/testenv';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' } } });
const runs = Number(values.runs);
const support = realNodeSupport();
if (!support.available) {
  console.log(`No real node here (${support.reason ?? ''}): nothing to compare.`);
  process.exit(0);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

function rssMiB(pids: number[]): number {
  let kib = 0;
  for (const pid of pids) {
    try {
      kib += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return kib / 1024;
}

/** Every process of the node: kwok's, or everything in the real node's cgroups. */
function nodePids(env: ControlPlane): number[] {
  if (env.node) return env.node.pids();
  return readFileSync(`${env.dir}/pids`, 'utf8')
    .split('\n')
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('/kwok');
      } catch {
        return false;
      }
    });
}

async function podsRunning(env: ControlPlane, names: string[], nodeName: string, image: string) {
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const t0 = performance.now();
  await Promise.all(
    names.map((name) =>
      core.createNamespacedPod({
        namespace: 'default',
        body: {
          metadata: { name },
          spec: {
            nodeName,
            containers: [
              { name: 'c', image, imagePullPolicy: 'Never', command: ['sleep', '3600'] },
            ],
          },
        } satisfies V1Pod,
      }),
    ),
  );
  await waitFor(
    async () => {
      const list = await core.listNamespacedPod({ namespace: 'default' });
      const up = list.items.filter(
        (p) => names.includes(p.metadata?.name ?? '') && p.status?.phase === 'Running',
      );
      return up.length === names.length
        ? { done: true, value: undefined }
        : { done: false, saw: `${up.length}/${names.length} Running` };
    },
    { description: 'pods Running', timeoutMs: 120_000, intervalMs: 50 },
  );
  return (performance.now() - t0) / 1000;
}

interface Figures {
  start: number[];
  onePod: number[];
  tenPods: number[];
  idleMiB: number[];
  busyMiB: number[];
  stop: number[];
}
const figures: Record<'kwok' | 'real', Figures> = {
  kwok: { start: [], onePod: [], tenPods: [], idleMiB: [], busyMiB: [], stop: [] },
  real: { start: [], onePod: [], tenPods: [], idleMiB: [], busyMiB: [], stop: [] },
};

for (let round = 0; round < runs; round++) {
  for (const kind of ['kwok', 'real'] as const) {
    const t0 = performance.now();
    const env = await startControlPlane({
      components: kind === 'kwok' ? ['controller-manager', 'scheduler', 'kwok'] : ['node'],
    });
    const f = figures[kind];
    f.start.push((performance.now() - t0) / 1000);
    let image = 'kfx.test/shell:1';
    if (env.node) image = await env.node.loadShellImage({ name: image });
    const nodeName = kind === 'kwok' ? 'kwok-node-0' : 'kfx-node';
    f.idleMiB.push(rssMiB(nodePids(env)));
    f.onePod.push(await podsRunning(env, ['one'], nodeName, image));
    f.tenPods.push(
      await podsRunning(
        env,
        Array.from({ length: 10 }, (_, i) => `ten-${i}`),
        nodeName,
        image,
      ),
    );
    f.busyMiB.push(rssMiB(nodePids(env)));
    const t1 = performance.now();
    await env.stop();
    f.stop.push((performance.now() - t1) / 1000);
  }
  console.error(`round ${round + 1}/${runs} done`);
}

const rows: [string, keyof Figures, string][] = [
  ['control plane + node Ready (s)', 'start', 's'],
  ['one pod, created → Running (s)', 'onePod', 's'],
  ['ten pods at once → all Running (s)', 'tenPods', 's'],
  ['node processes, idle (MiB RSS)', 'idleMiB', 'MiB'],
  ['node processes, 11 pods (MiB RSS)', 'busyMiB', 'MiB'],
  ['stop (s)', 'stop', 's'],
];
console.log(`\nReal node vs kwok, median of ${runs} rounds in one run:`);
console.log(
  `  ${'what'.padEnd(36)} ${'kwok'.padStart(8)} ${'real'.padStart(8)} ${'real/kwok'.padStart(10)}`,
);
for (const [label, key] of rows) {
  const k = median(figures.kwok[key]);
  const r = median(figures.real[key]);
  console.log(
    `  ${label.padEnd(36)} ${k.toFixed(2).padStart(8)} ${r.toFixed(2).padStart(8)} ${`${(r / k).toFixed(2)}×`.padStart(10)}`,
  );
}
