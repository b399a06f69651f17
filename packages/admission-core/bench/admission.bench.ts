// Benchmark: the admission server against the transport floor, side by side in one run, over TLS
// with keep-alive on HTTP/1.1 and HTTP/2, with a realistic AdmissionReview (a 3-container Pod).
// Run with `pnpm run bench` (builds first). Prints a table and the ratios; asserts nothing.
import { admissionReviewFor, writeDevCertificates } from '@kfx/admission-core';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { notebookPod } from '../src/testing/notebook-pod.ts';
import { closedLoop, openLoop, percentile, type Protocol, type Result } from './load.ts';
import { startServer } from './servers.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = 32;
const RATE = 1000;

const dir = await mkdtemp(join(tmpdir(), 'kfx-bench-'));
const certs = await writeDevCertificates(dir);
const body = JSON.stringify(admissionReviewFor({ object: notebookPod(), uid: 'bench' }));
const env = { CERT_FILE: certs.certFile, KEY_FILE: certs.keyFile };
const floor = await startServer('floor-server.ts', env);
const kfx = await startServer('kfx-server.ts', env);

function patchOperations(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const options = {
      host: '127.0.0.1',
      port,
      path: '/mutate/proxy',
      method: 'POST',
      ca: certs.caCert,
    };
    const req = request(options, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => {
        const { response } = JSON.parse(text) as { response: { patch?: string } };
        const patch = Buffer.from(response.patch ?? 'W10=', 'base64').toString();
        resolve((JSON.parse(patch) as unknown[]).length);
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

interface Measured {
  closed: Result;
  open: Result;
  cpuUsPerRequest: number;
}

const ROUNDS = 3;

function merge(results: Result[]): Result {
  return {
    requests: results.reduce((sum, r) => sum + r.requests, 0),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
    seconds: results.reduce((sum, r) => sum + r.seconds, 0),
    latenciesMs: results.flatMap((r) => r.latenciesMs),
  };
}

/** Rounds alternate between the servers, so that a busy moment on the machine hits both. */
async function measure(protocol: Protocol): Promise<[Measured, Measured]> {
  const servers = [
    { server: floor, path: '/' },
    { server: kfx, path: '/mutate/proxy' },
  ];
  const closed: Result[][] = [[], []];
  const cpuMs = [0, 0];
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [index, { server, path }] of servers.entries()) {
      const target = { port: server.port, path, ca: certs.caCert, body, protocol };
      const before = server.cpuMs();
      closed[index]?.push(await closedLoop(target, CONCURRENCY, SECONDS));
      cpuMs[index] = (cpuMs[index] ?? 0) + server.cpuMs() - before;
    }
  }
  const open: Result[] = [];
  for (const { server, path } of servers) {
    open.push(
      await openLoop({ port: server.port, path, ca: certs.caCert, body, protocol }, RATE, SECONDS),
    );
  }
  const summary = (index: 0 | 1): Measured => {
    const all = merge(closed[index] ?? []);
    const emptyOpen = { requests: 0, errors: 0, seconds: 1, latenciesMs: [] };
    const cpuUsPerRequest = ((cpuMs[index] ?? 0) * 1000) / all.requests;
    return { closed: all, open: open[index] ?? emptyOpen, cpuUsPerRequest };
  };
  return [summary(0), summary(1)];
}

const rps = (r: Result) => r.requests / r.seconds;
const ms = (r: Result, p: number) => percentile(r.latenciesMs, p).toFixed(2).padStart(7);

try {
  const operations = await patchOperations(kfx.port);
  console.log(
    `AdmissionReview of ${(Buffer.byteLength(body) / 1024).toFixed(1)} KiB (a 3-container Pod); the kfx ` +
      `handler answers with a ${operations}-operation patch. ${CONCURRENCY} concurrent requests, ` +
      `${ROUNDS} × ${SECONDS} s per server and protocol (alternating), then ${RATE} req/s for ${SECONDS} s. ` +
      `Node ${process.version}.`,
  );
  console.log(
    'protocol  server         req/s  p50 ms  p99 ms  CPU µs/req | at 1000/s: p50 ms  p99 ms  errors',
  );
  const summary: string[] = [];
  for (const protocol of ['HTTP/1.1', 'HTTP/2'] as Protocol[]) {
    // Warm-up (JIT, TLS session caches), then the floor and kfx one after the other.
    await closedLoop(
      { port: floor.port, path: '/', ca: certs.caCert, body, protocol },
      CONCURRENCY,
      2,
    );
    await closedLoop(
      { port: kfx.port, path: '/mutate/proxy', ca: certs.caCert, body, protocol },
      CONCURRENCY,
      2,
    );
    const [a, b] = await measure(protocol);
    for (const [name, m] of [
      ['floor (no-op)', a],
      ['kfx admission', b],
    ] as const) {
      console.log(
        `${protocol.padEnd(9)} ${name.padEnd(13)}${rps(m.closed).toFixed(0).padStart(7)} ${ms(m.closed, 50)} ` +
          `${ms(m.closed, 99)}  ${m.cpuUsPerRequest.toFixed(0).padStart(10)} |          ${ms(m.open, 50)} ` +
          `${ms(m.open, 99)}  ${String(m.closed.errors + m.open.errors).padStart(6)}`,
      );
    }
    summary.push(
      `${protocol}: kfx/floor throughput ${(rps(b.closed) / rps(a.closed)).toFixed(2)}×, ` +
        `server CPU per request ${(b.cpuUsPerRequest / a.cpuUsPerRequest).toFixed(1)}× the floor, ` +
        `kfx p99 at ${RATE} req/s ${percentile(b.open.latenciesMs, 99).toFixed(2)} ms`,
    );
  }
  console.log(summary.join('\n'));
} finally {
  await floor.stop();
  await kfx.stop();
  await rm(dir, { recursive: true, force: true });
}
