// Benchmark of the test control plane: the cold build of the binaries (as recorded when they
// were built into the cache, or rebuilt from scratch with --cold) and the warm start and stop of
// each configuration the suites use. Target: warm start, apiserver ready, under 10 s.
//   node bench/start.bench.ts [--runs N] [--cold]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  BINARY_NAMES,
  ensureBinaries,
  moduleCacheDir,
  moduleOf,
  readBuildRecord,
  startControlPlane,
  type OptionalComponent,
} from '@kfx/testenv';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '3' }, cold: { type: 'boolean' } },
});
const runs = Number(values.runs);

if (values.cold) {
  // A truly cold build: empty binary cache and empty Go build cache (modules stay downloaded).
  const scratch = mkdtempSync(join(tmpdir(), 'kfx-cold-build-'));
  process.env.KFX_CACHE_DIR = join(scratch, 'kfx');
  process.env.GOCACHE = join(scratch, 'go-build');
  await ensureBinaries(BINARY_NAMES, (l) => {
    console.error(l);
  });
}

console.log(
  '\nCold build of the control-plane binaries (seconds, Go build cache empty at first build):',
);
// One record per wrapper module (each has its own cache folder), in build order.
const records = [...new Set(BINARY_NAMES.map(moduleOf))].map((module) => ({
  module,
  record: readBuildRecord(moduleCacheDir(module)),
}));
if (records.some((r) => r.record)) {
  let total = 0;
  for (const { module, record } of records) {
    if (!record) continue;
    for (const [name, s] of Object.entries(record.seconds)) {
      total += s;
      console.log(`  ${`${name} (${module.name})`.padEnd(36)} ${s.toFixed(0).padStart(5)}`);
    }
  }
  const last = records.find((r) => r.record)?.record;
  console.log(
    `  ${'total'.padEnd(36)} ${total.toFixed(0).padStart(5)}   (${last?.goVersion ?? ''}, built ${last?.builtAt ?? ''})`,
  );
} else {
  console.log('  no build recorded (binaries came from KUBEBUILDER_ASSETS)');
}
await ensureBinaries(BINARY_NAMES);

const configurations: { name: string; components: OptionalComponent[] }[] = [
  { name: 'etcd + kube-apiserver', components: [] },
  { name: '+ controller-manager', components: ['controller-manager'] },
  {
    name: '+ controller-manager, scheduler, kwok',
    components: ['controller-manager', 'scheduler', 'kwok'],
  },
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
console.log(`\nWarm start → ready, and stop (seconds, median of ${runs}; target: start < 10 s):`);
console.log(
  `  ${'configuration'.padEnd(40)} ${'start'.padStart(6)} ${'stop'.padStart(6)} ${'vs target'.padStart(10)}`,
);
for (const config of configurations) {
  const starts: number[] = [];
  const stops: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const env = await startControlPlane({ components: config.components });
    const t1 = performance.now();
    await env.stop();
    starts.push((t1 - t0) / 1000);
    stops.push((performance.now() - t1) / 1000);
  }
  const s = median(starts);
  console.log(
    `  ${config.name.padEnd(40)} ${s.toFixed(2).padStart(6)} ${median(stops).toFixed(2).padStart(6)} ${`${(s / 10).toFixed(2)}×`.padStart(10)}`,
  );
}
if (values.cold && process.env.KFX_CACHE_DIR)
  rmSync(join(process.env.KFX_CACHE_DIR, '..'), { recursive: true, force: true });
