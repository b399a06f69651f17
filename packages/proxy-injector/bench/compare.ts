// Side-by-side measurement of benchmark servers on one AdmissionReview body: closed-loop
// throughput (twice, interleaved per server) with the server's CPU per request, then latency at a
// fixed rate. Built on admission-core's load generator; shared by the kfx plugin benchmarks.
import {
  closedLoop,
  openLoop,
  percentile,
  type Protocol,
  type Result,
} from '../../admission-core/bench/load.ts';
import type { Running } from '../../admission-core/bench/servers.ts';

export interface Contender {
  name: string;
  path: string;
  running: Running;
}

export interface Measured {
  name: string;
  closed: Result;
  open: Result;
  cpuUsPerRequest: number;
}

export interface CompareOptions {
  body: string;
  ca: string;
  seconds: number;
  concurrency: number;
  rate: number;
}

export const rps = (r: Result) => r.requests / r.seconds;

async function measure(c: Contender, protocol: Protocol, o: CompareOptions): Promise<Measured> {
  const target = { port: c.running.port, path: c.path, ca: o.ca, body: o.body, protocol };
  const cpu0 = c.running.cpuMs();
  const first = await closedLoop(target, o.concurrency, o.seconds);
  const second = await closedLoop(target, o.concurrency, o.seconds);
  const cpuUsPerRequest = ((c.running.cpuMs() - cpu0) * 1000) / (first.requests + second.requests);
  const closed = {
    requests: first.requests + second.requests,
    errors: first.errors + second.errors,
    seconds: first.seconds + second.seconds,
    latenciesMs: [...first.latenciesMs, ...second.latenciesMs],
  };
  const open = await openLoop(target, o.rate, o.seconds);
  return { name: c.name, closed, open, cpuUsPerRequest };
}

const ms = (r: Result, p: number) => percentile(r.latenciesMs, p).toFixed(2).padStart(7);

/** Measures every contender on one protocol, printing a row each; returns the measurements. */
export async function compare(
  contenders: readonly Contender[],
  protocol: Protocol,
  options: CompareOptions,
): Promise<Measured[]> {
  for (const c of contenders) {
    const target = {
      port: c.running.port,
      path: c.path,
      ca: options.ca,
      body: options.body,
      protocol,
    };
    await closedLoop(target, options.concurrency, 2); // warm-up: JIT, TLS sessions, connections
  }
  const results: Measured[] = [];
  for (const c of contenders) {
    const m = await measure(c, protocol, options);
    results.push(m);
    console.log(
      `${protocol.padEnd(9)} ${c.name.padEnd(15)}${rps(m.closed).toFixed(0).padStart(8)} ${ms(m.closed, 50)} ` +
        `${ms(m.closed, 99)}  ${m.cpuUsPerRequest.toFixed(0).padStart(10)} |          ${ms(m.open, 50)} ` +
        `${ms(m.open, 99)}  ${String(m.closed.errors + m.open.errors).padStart(6)}`,
    );
  }
  return results;
}

export const HEADER =
  'protocol  server            req/s  p50 ms  p99 ms  CPU µs/req | at rate: p50 ms  p99 ms  errors';

export { percentile, type Protocol };
