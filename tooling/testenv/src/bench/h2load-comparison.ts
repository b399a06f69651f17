// The comparison of a kfx webhook with a Go peer (peer.ts), the least correct webhook
// (echo-server.ts, answering kfx's own patch) and the transport floor (floor-server.ts; the kit
// starts these two itself, with the same Node.js flags), side by side in one run,
// driven by h2load: throughput at saturation over HTTP/2 and HTTP/1.1 (rounds alternate between
// the servers, so that a busy moment of the machine hits all of them), the server's CPU time per
// review, the latency at a fixed 100 requests/s, and each server's peak RSS. Prints the table and
// the ratios against the targets; asserts nothing.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { postH1, type Answer } from '../https-client.js';
import { h2load, type H2loadResult } from './h2load.js';
import { percentile, type Protocol } from './load.js';
import { startEchoServer, startFloorServer, type Running } from './servers.js';

export interface BenchTls {
  certFile: string;
  keyFile: string;
  caCert: string;
}

export interface H2loadContender {
  /** Column header. */
  name: string;
  /** The path reviews are posted to. */
  path: string;
  start(tls: BenchTls): Promise<Running>;
}

export interface H2loadComparisonOptions {
  peer: H2loadContender;
  kfx: H2loadContender;
  tls: BenchTls;
  /** File holding the AdmissionReview every request sends. */
  bodyFile: string;
  /** One line saying what is compared (printed first). */
  describe: string;
  /**
   * Node.js flags for the kit's own servers (the least correct webhook and the floor), e.g. the
   * heap flags kfx runs with, so that their peak RSS compare like with like. Default none.
   */
  nodeArgs?: readonly string[];
  seconds?: number;
  rounds?: number;
  log?: (line: string) => void;
}

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

/** The environment the kit's servers read their TLS files from. */
const tlsEnv = (tls: BenchTls) => ({ CERT_FILE: tls.certFile, KEY_FILE: tls.keyFile });

interface Probed {
  /** The number of patch operations, or what went wrong. */
  summary: string;
  /** `response.patch` (base64), when there is one. */
  patch?: string;
}

/** What a server answers the body with (a correctness probe). */
async function probe(port: number, path: string, body: Buffer, ca: string): Promise<Probed> {
  let answer: Answer;
  try {
    answer = await postH1(port, path, body, { ca });
  } catch (error) {
    return { summary: `error: ${error instanceof Error ? error.message : String(error)}` };
  }
  try {
    const { response } = JSON.parse(answer.body) as { response: { patch?: string } };
    if (response.patch === undefined) return { summary: 'no patch' };
    const patch = JSON.parse(Buffer.from(response.patch, 'base64').toString()) as [];
    return { summary: `${patch.length} patch operations`, patch: response.patch };
  } catch {
    return { summary: `HTTP ${String(answer.status)}: ${answer.body.slice(0, 80)}` };
  }
}

interface Totals {
  ok: number;
  failed: number;
  seconds: number;
  cpuMs: number;
}

const empty = (): Totals => ({ ok: 0, failed: 0, seconds: 0, cpuMs: 0 });

function h2loadVersion(): string {
  try {
    return execFileSync('h2load', ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return 'h2load';
  }
}

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

/**
 * Runs the comparison and prints it. BENCH_SECONDS, BENCH_ROUNDS, BENCH_LATENCY_SECONDS,
 * BENCH_H2_CLIENTS, BENCH_H2_STREAMS and BENCH_H1_CLIENTS change the defaults.
 */
export async function compareWithH2load(options: H2loadComparisonOptions): Promise<void> {
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const seconds = options.seconds ?? env('BENCH_SECONDS', 10);
  const rounds = options.rounds ?? env('BENCH_ROUNDS', 2);
  const latencySeconds = env('BENCH_LATENCY_SECONDS', 20);
  const h2Clients = env('BENCH_H2_CLIENTS', 4);
  const h2Streams = env('BENCH_H2_STREAMS', 16);
  const h1Clients = env('BENCH_H1_CLIENTS', 64);
  const body = readFileSync(options.bodyFile);
  const running: Running[] = [];
  // Started after kfx, and answering with kfx's own patch: the same bytes on the wire.
  const leastCorrect: H2loadContender = {
    name: 'least correct',
    path: '/',
    start: async (tls) => {
      const kfx = running[1];
      const answer = kfx ? await probe(kfx.port, options.kfx.path, body, tls.caCert) : undefined;
      return startEchoServer({ ...tlsEnv(tls), PATCH: answer?.patch ?? '' }, options.nodeArgs);
    },
  };
  const noopFloor: H2loadContender = {
    name: 'no-op floor',
    path: '/',
    start: (tls) => startFloorServer(tlsEnv(tls), options.nodeArgs),
  };
  const contenders = [options.peer, options.kfx, leastCorrect, noopFloor];
  log(options.describe);
  log(
    `${h2loadVersion()}; Node ${process.version}; AdmissionReview of ${(body.length / 1024).toFixed(1)} KiB. ` +
      `Saturation: HTTP/2 ${h2Clients} connections × ${h2Streams} streams, HTTP/1.1 ${h1Clients} ` +
      `connections; ${rounds} × ${seconds} s per server and protocol, alternating. Latency: ` +
      `100 requests/s over HTTP/2 (4 connections × 25/s) for ${latencySeconds} s per server.`,
  );
  log(
    'least correct: the floor plus JSON.parse of the review, its uid echoed and the answer ' +
      "written with kfx's own patch (@kfx/testenv/bench's echo-server.ts): what no webhook that " +
      'reads the review can go below.' +
      (options.nodeArgs?.length ? ` It and the floor run with ${options.nodeArgs.join(' ')}.` : ''),
  );
  const loadBefore = load();
  try {
    for (const contender of contenders) running.push(await contender.start(options.tls));
    for (const [index, contender] of contenders.entries()) {
      const server = running[index];
      if (!server) continue;
      const answer = await probe(server.port, contender.path, body, options.tls.caCert);
      log(`  ${contender.name}: ${answer.summary}, idle RSS ${server.rssMiB().now.toFixed(0)} MiB`);
    }
    const url = (index: number) =>
      `https://127.0.0.1:${String(running[index]?.port)}${contenders[index]?.path ?? '/'}`;
    const saturate = (index: number, protocol: Protocol, time: number) =>
      h2load({
        url: url(index),
        bodyFile: options.bodyFile,
        protocol,
        clients: protocol === 'HTTP/2' ? h2Clients : h1Clients,
        streams: h2Streams,
        seconds: time,
      });
    const totals = new Map<Protocol, Totals[]>();
    for (const protocol of ['HTTP/2', 'HTTP/1.1'] as Protocol[]) {
      const sums = contenders.map(empty);
      for (const index of contenders.keys()) await saturate(index, protocol, 3); // warm-up
      for (let round = 0; round < rounds; round += 1) {
        for (const index of contenders.keys()) {
          const server = running[index];
          const sum = sums[index];
          if (!server || !sum) continue;
          const before = server.cpuMs();
          const result: H2loadResult = await saturate(index, protocol, seconds);
          sum.cpuMs += server.cpuMs() - before;
          sum.ok += result.ok;
          sum.failed += result.failed;
          sum.seconds += result.seconds;
        }
      }
      totals.set(protocol, sums);
    }
    const latencies: number[][] = contenders.map(() => []);
    const latencyFailures = contenders.map(() => 0);
    for (let round = 0; round < 2; round += 1) {
      for (const index of contenders.keys()) {
        const result = await h2load({
          url: url(index),
          bodyFile: options.bodyFile,
          protocol: 'HTTP/2',
          clients: 4,
          seconds: latencySeconds / 2,
          rpsPerClient: 25,
          latencies: true,
        });
        latencies[index]?.push(...result.latenciesMs);
        latencyFailures[index] = (latencyFailures[index] ?? 0) + result.failed;
      }
    }
    const peaks = running.map((server) => server.rssMiB().peak);
    const rate = (protocol: Protocol, index: number) => {
      const t = totals.get(protocol)?.[index];
      return t ? t.ok / t.seconds : Number.NaN;
    };
    const cpu = (protocol: Protocol, index: number) => {
      const t = totals.get(protocol)?.[index];
      return t ? (t.cpuMs * 1000) / (t.ok + t.failed) : Number.NaN;
    };
    const failures = (index: number) =>
      (totals.get('HTTP/2')?.[index]?.failed ?? 0) +
      (totals.get('HTTP/1.1')?.[index]?.failed ?? 0) +
      (latencyFailures[index] ?? 0);
    const p = (index: number, q: number) => percentile(latencies[index] ?? [], q);
    const row = (label: string, cells: string[]) =>
      `| ${label.padEnd(30)} | ${cells.map((c) => c.padStart(13)).join(' | ')} |`;
    const each = (f: (index: number) => string) => contenders.map((_, index) => f(index));
    log('');
    log(
      row(
        '',
        contenders.map((c) => c.name),
      ),
    );
    log(`|${'-'.repeat(32)}|${contenders.map(() => `${'-'.repeat(14)}:`).join('|')}|`);
    for (const protocol of ['HTTP/2', 'HTTP/1.1'] as Protocol[]) {
      log(
        row(
          `req/s, ${protocol} saturation`,
          each((i) => rate(protocol, i).toFixed(0)),
        ),
      );
    }
    log(
      row(
        'p50 ms at 100 req/s',
        each((i) => p(i, 50).toFixed(2)),
      ),
    );
    log(
      row(
        'p99 ms at 100 req/s',
        each((i) => p(i, 99).toFixed(2)),
      ),
    );
    for (const protocol of ['HTTP/2', 'HTTP/1.1'] as Protocol[]) {
      log(
        row(
          `server CPU µs/review, ${protocol}`,
          each((i) => cpu(protocol, i).toFixed(0)),
        ),
      );
    }
    log(
      row(
        'peak RSS MiB',
        each((i) => (peaks[i] ?? Number.NaN).toFixed(0)),
      ),
    );
    log(
      row(
        'answers not 2xx',
        each((i) => String(failures(i))),
      ),
    );
    log('');
    const [peer, kfx, least, floor] = [0, 1, 2, 3];
    const ratio = (a: number, b: number) => (a / b).toFixed(2);
    log(
      `kfx/peer throughput: ${ratio(rate('HTTP/2', kfx), rate('HTTP/2', peer))}× over HTTP/2, ` +
        `${ratio(rate('HTTP/1.1', kfx), rate('HTTP/1.1', peer))}× over HTTP/1.1 (target ≥ 10×)`,
    );
    log(`kfx/peer p99 at 100 req/s: ${ratio(p(kfx, 99), p(peer, 99))} (target ≤ 0.10)`);
    log(
      `kfx/floor server CPU per review: ${ratio(cpu('HTTP/2', kfx), cpu('HTTP/2', floor))}× over HTTP/2, ` +
        `${ratio(cpu('HTTP/1.1', kfx), cpu('HTTP/1.1', floor))}× over HTTP/1.1 (target ≤ 2×)`,
    );
    log(
      `least correct webhook/floor (parsing the review and writing the answer, nothing else): ` +
        `${ratio(cpu('HTTP/2', least), cpu('HTTP/2', floor))}× over HTTP/2, ` +
        `${ratio(cpu('HTTP/1.1', least), cpu('HTTP/1.1', floor))}× over HTTP/1.1; kfx/least ` +
        `correct: ${ratio(cpu('HTTP/2', kfx), cpu('HTTP/2', least))}× over HTTP/2, ` +
        `${ratio(cpu('HTTP/1.1', kfx), cpu('HTTP/1.1', least))}× over HTTP/1.1`,
    );
    log(
      `kfx peak RSS: ${(peaks[kfx] ?? Number.NaN).toFixed(0)} MiB, the floor's ` +
        `${(peaks[floor] ?? Number.NaN).toFixed(0)} MiB (target ≤ 80 MiB under saturation; ` +
        'the 10-minute soak is apps/webhook `pnpm run bench:soak`)',
    );
    log(
      'Pods/s through the apiserver (target within 5 % of a no-op webhook): `pnpm run bench:e2e` ' +
        'in packages/admission-core, which needs a control plane.',
    );
    log(`load average (1, 5, 15 min): ${loadBefore} before, ${load()} after`);
  } finally {
    for (const server of running) await server.stop();
  }
}
