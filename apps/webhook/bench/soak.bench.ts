// Benchmark: the built kfx-webhook under BENCH_MINUTES (default 10) of saturation with the
// chart's heap flags for BENCH_LIMIT_MIB (default the chart's 384), driven by h2load over HTTP/2
// (4 connections × 16 streams, the notebook Pod review), its memory sampled every second. Prints
// per minute the highest RSS (and its anonymous and file-backed parts), the highest V8 heap (in
// use and reserved, from the webhook's /metrics) and native memory outside it ("external"), the
// requests per second and the CPU per review, then the peak and the growth after the first
// (warm-up) minute.
// BENCH_ENV adds environment variables to the webhook (e.g. BENCH_ENV=MALLOC_ARENA_MAX=2), and
// BENCH_NODE_ARGS Node.js flags after the chart's (e.g. BENCH_NODE_ARGS=--max-semi-space-size=2).
// Run with `pnpm run bench:soak` (builds the bundle first); asserts nothing.
import { ensureH2load, h2load, startProcess } from '@kfx/testenv/bench';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { CHART_LIMIT_MIB, heapFlags } from './heap-flags.ts';
import { benchSetup, MAIN } from './setup.ts';

const MINUTES = Number(process.env.BENCH_MINUTES ?? 10);
const LIMIT_MIB = Number(process.env.BENCH_LIMIT_MIB ?? CHART_LIMIT_MIB);
const extraEnv = Object.fromEntries(
  (process.env.BENCH_ENV ?? '')
    .split(/\s+/)
    .filter((pair) => pair.includes('='))
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);
const log = (line: string) => process.stdout.write(`${line}\n`);
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

function memory(pid: number | undefined) {
  try {
    const text = readFileSync(`/proc/${String(pid)}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(text)?.[1]) / 1024;
    return { rss: field('VmRSS'), anon: field('RssAnon'), file: field('RssFile') };
  } catch {
    return { rss: Number.NaN, anon: Number.NaN, file: Number.NaN };
  }
}

interface Heap {
  used: number;
  total: number;
  external: number;
}

/** The V8 heap in use and reserved and the external memory, in MiB, from the webhook's /metrics. */
async function heap(metricsPort: unknown): Promise<Heap> {
  const none = { used: Number.NaN, total: Number.NaN, external: Number.NaN };
  if (typeof metricsPort !== 'number') return none;
  try {
    const text = await (await fetch(`http://127.0.0.1:${String(metricsPort)}/metrics`)).text();
    const gauge = (name: string) =>
      Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1]) / 1024 / 1024;
    return {
      used: gauge('nodejs_heap_size_used_bytes'),
      total: gauge('nodejs_heap_size_total_bytes'),
      external: gauge('nodejs_external_memory_bytes'),
    };
  } catch {
    return none;
  }
}

ensureH2load(log);
const setup = benchSetup();
const flags = [
  ...heapFlags(LIMIT_MIB),
  ...(process.env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean),
];
const server = await startProcess(process.execPath, [...flags, MAIN, '--config', setup.config], {
  env: { KUBERNETES_SERVICE_HOST: '', ...extraEnv },
  unset: ['KUBECONFIG'],
});
try {
  const idle = memory(server.pid);
  log(
    `kfx-webhook under ${MINUTES} min of HTTP/2 saturation (h2load, 4 connections × 16 streams, ` +
      `the notebook Pod review); ${flags.join(' ')} (the chart's for a ${LIMIT_MIB}Mi limit)` +
      `${Object.keys(extraEnv).length > 0 ? `, ${process.env.BENCH_ENV ?? ''}` : ''}; Node ` +
      `${process.version}. Idle: RSS ${idle.rss.toFixed(0)} MiB (anonymous ${idle.anon.toFixed(0)}, ` +
      `file-backed ${idle.file.toFixed(0)}). Load average before: ${load()}.`,
  );
  log(
    'minute  max RSS MiB  max anon MiB  max file MiB  heap used/total MiB  external MiB' +
      '    req/s  CPU µs/review  not 2xx',
  );
  const maxima: number[] = [];
  for (let minute = 1; minute <= MINUTES; minute += 1) {
    let top = { rss: 0, anon: 0, file: 0 };
    let topHeap = { used: 0, total: 0, external: 0 };
    let tick = 0;
    const sampler = setInterval(() => {
      const now = memory(server.pid);
      top = {
        rss: Math.max(top.rss, now.rss),
        anon: Math.max(top.anon, now.anon),
        file: Math.max(top.file, now.file),
      };
      tick += 1;
      if (tick % 5 !== 0) return; // the heap every 5 s: a scrape costs the webhook a little
      void heap(server.announced.metricsPort).then((h) => {
        topHeap = {
          used: Math.max(topHeap.used, h.used),
          total: Math.max(topHeap.total, h.total),
          external: Math.max(topHeap.external, h.external),
        };
      });
    }, 1000);
    const before = server.cpuMs();
    const result = await h2load({
      url: `https://127.0.0.1:${server.port}/mutate/proxy-injector`,
      bodyFile: setup.bodyFile,
      protocol: 'HTTP/2',
      clients: 4,
      streams: 16,
      seconds: 60,
    });
    clearInterval(sampler);
    const cpu = ((server.cpuMs() - before) * 1000) / (result.ok + result.failed);
    maxima.push(top.rss);
    log(
      `${String(minute).padStart(6)} ${top.rss.toFixed(0).padStart(12)} ${top.anon.toFixed(0).padStart(13)} ` +
        `${top.file.toFixed(0).padStart(13)} ` +
        `${`${topHeap.used.toFixed(0)}/${topHeap.total.toFixed(0)}`.padStart(20)} ` +
        `${topHeap.external.toFixed(0).padStart(13)} ${(result.ok / result.seconds).toFixed(0).padStart(8)} ` +
        `${cpu.toFixed(0).padStart(14)} ${String(result.failed).padStart(8)}`,
    );
  }
  const peak = server.rssMiB().peak;
  const warm = maxima[Math.min(1, maxima.length - 1)] ?? Number.NaN;
  const last = maxima.at(-1) ?? Number.NaN;
  log(
    `peak RSS (VmHWM) ${peak.toFixed(0)} MiB against the ${LIMIT_MIB}Mi limit (target ≤ 80 MiB); ` +
      `highest RSS in minute 2 ${warm.toFixed(0)} MiB, in the last minute ${last.toFixed(0)} MiB ` +
      `(growth after warm-up ${(last - warm).toFixed(0)} MiB; target none). Load average after: ` +
      `${load()}.`,
  );
} finally {
  await server.stop();
  setup.remove();
}
