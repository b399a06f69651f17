// Side-by-side measurement of benchmark servers on one AdmissionReview body: closed-loop
// throughput in short slices, every server in turn, over several rounds (so that a noisy moment on
// a shared machine hits all of them alike), with the server's CPU per request; then latency at a
// fixed rate. Built on the load generator of load.ts.
import { closedLoop, openLoop, percentile, type Protocol, type Result } from './load.js';
import type { Running } from './servers.js';

export interface Contender {
  name: string;
  path: string;
  running: Running;
}

export interface Measured {
  name: string;
  closed: Result;
  /** Requests per second in each round, for ratios taken round by round. */
  rounds: number[];
  open: Result;
  cpuUsPerRequest: number;
}

export interface SideBySideOptions {
  body: string;
  ca: string;
  /** Closed-loop seconds per server per round. */
  slice: number;
  rounds: number;
  /** Open-loop seconds per server. */
  seconds: number;
  concurrency: number;
  rate: number;
}

export type SideBySideTiming = Omit<SideBySideOptions, 'body' | 'ca'>;

/**
 * The timing of a side-by-side run as the admission benchmarks take it from the environment:
 * BENCH_SLICE_SECONDS (default 2), BENCH_ROUNDS (5), BENCH_SECONDS (5, the fixed-rate run), 32
 * concurrent requests and 1,000 requests/s; `defaults` changes what an unset variable means.
 */
export function sideBySideTiming(defaults: Partial<SideBySideTiming> = {}): SideBySideTiming {
  const fromEnv = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
  return {
    slice: fromEnv('BENCH_SLICE_SECONDS', defaults.slice ?? 2),
    rounds: fromEnv('BENCH_ROUNDS', defaults.rounds ?? 5),
    seconds: fromEnv('BENCH_SECONDS', defaults.seconds ?? 5),
    concurrency: defaults.concurrency ?? 32,
    rate: defaults.rate ?? 1000,
  };
}

const rps = (r: Result) => r.requests / r.seconds;

/** The median, over rounds, of a's throughput divided by b's in the same round. */
export function roundRatio(a: Measured, b: Measured): number {
  const ratios = a.rounds
    .map((value, i) => value / (b.rounds[i] ?? Number.NaN))
    .sort((x, y) => x - y);
  const middle = Math.floor(ratios.length / 2);
  if (ratios.length % 2 === 1) return ratios[middle] ?? Number.NaN;
  return ((ratios[middle - 1] ?? Number.NaN) + (ratios[middle] ?? Number.NaN)) / 2;
}

const empty = (): Result => ({ requests: 0, errors: 0, seconds: 0, latenciesMs: [] });
const ms = (r: Result, p: number) => percentile(r.latenciesMs, p).toFixed(2).padStart(7);

/** The header of the rows sideBySide prints. */
export const SIDE_BY_SIDE_HEADER =
  'protocol  server            req/s  p50 ms  p99 ms  CPU µs/req | at rate: p50 ms  p99 ms  errors';

/** Measures every contender on one protocol, printing a row each; returns the measurements. */
export async function sideBySide(
  contenders: readonly Contender[],
  protocol: Protocol,
  options: SideBySideOptions,
): Promise<Measured[]> {
  const { body, ca, concurrency } = options;
  const runs = contenders.map((c) => ({
    contender: c,
    target: { port: c.running.port, path: c.path, ca, body, protocol },
    cpuMs: 0,
    measured: { name: c.name, closed: empty(), rounds: [], open: empty(), cpuUsPerRequest: 0 },
  }));
  for (const { target } of runs) await closedLoop(target, concurrency, 2); // warm-up
  for (let round = 0; round < options.rounds; round += 1) {
    for (const run of runs) {
      const cpu0 = run.contender.running.cpuMs();
      const r = await closedLoop(run.target, concurrency, options.slice);
      run.cpuMs += run.contender.running.cpuMs() - cpu0;
      const { closed, rounds } = run.measured as Measured;
      rounds.push(rps(r));
      closed.requests += r.requests;
      closed.errors += r.errors;
      closed.seconds += r.seconds;
      for (const latency of r.latenciesMs) closed.latenciesMs.push(latency);
    }
  }
  const results: Measured[] = [];
  for (const run of runs) {
    const m: Measured = run.measured;
    m.cpuUsPerRequest = (run.cpuMs * 1000) / m.closed.requests;
    m.open = await openLoop(run.target, options.rate, options.seconds);
    results.push(m);
    console.log(
      `${protocol.padEnd(9)} ${m.name.padEnd(15)}${rps(m.closed).toFixed(0).padStart(8)} ${ms(m.closed, 50)} ` +
        `${ms(m.closed, 99)}  ${m.cpuUsPerRequest.toFixed(0).padStart(10)} |          ${ms(m.open, 50)} ` +
        `${ms(m.open, 99)}  ${String(m.closed.errors + m.open.errors).padStart(6)}`,
    );
  }
  return results;
}
