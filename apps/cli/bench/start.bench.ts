// Benchmark (not a test) of the CLI's start: `kfx --help`, `kfx uat run --help` and `kfx
// --version` against `node -e 0` (the floor: starting Node itself), measured side by side in
// rounds so that other work on the machine moves all of them alike. Target: each ≤ 2.5× the
// floor. Run with `pnpm run bench` (builds first).
//   node bench/start.bench.ts [--rounds N]
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '15' } } });
const rounds = Number(values.rounds);
const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));

const cases: [string, string[]][] = [
  ['node -e 0', ['-e', '0']],
  ['kfx --help', [main, '--help']],
  ['kfx uat run --help', [main, 'uat', 'run', '--help']],
  ['kfx --version', [main, '--version']],
];

const times = new Map<string, number[]>(cases.map(([name]) => [name, []]));
for (let round = 0; round < rounds; round++) {
  for (const [name, args] of cases) {
    const started = performance.now();
    const result = spawnSync(process.execPath, args, { stdio: 'ignore' });
    if (result.status !== 0) throw new Error(`${name} exited ${String(result.status)}`);
    times.get(name)?.push(performance.now() - started);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const floor = median(times.get('node -e 0') ?? []);
console.log(`CLI start, median of ${rounds} rounds (ms), target ≤ 2.5× node -e 0:`);
for (const [name] of cases) {
  const ms = median(times.get(name) ?? []);
  const ratio = ms / floor;
  const verdict = name === 'node -e 0' ? '' : ratio <= 2.5 ? '  ok' : '  over target';
  console.log(`  ${name.padEnd(20)} ${ms.toFixed(0).padStart(5)}  ${ratio.toFixed(2)}×${verdict}`);
}
