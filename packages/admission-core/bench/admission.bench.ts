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
import { startServer, type Running } from './servers.ts';

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

async function measure(server: Running, protocol: Protocol, path: string): Promise<Measured> {
  const target = { port: server.port, path, ca: certs.caCert, body, protocol };
  const cpu0 = server.cpuMs();
  const first = await closedLoop(target, CONCURRENCY, SECONDS);
  const second = await closedLoop(target, CONCURRENCY, SECONDS);
  const cpuUsPerRequest = ((server.cpuMs() - cpu0) * 1000) / (first.requests + second.requests);
  const closed = {
    requests: first.requests + second.requests,
    errors: first.errors + second.errors,
    seconds: first.seconds + second.seconds,
    latenciesMs: [...first.latenciesMs, ...second.latenciesMs],
  };
  return { closed, open: await openLoop(target, RATE, SECONDS), cpuUsPerRequest };
}

const rps = (r: Result) => r.requests / r.seconds;
const ms = (r: Result, p: number) => percentile(r.latenciesMs, p).toFixed(2).padStart(7);

try {
  const operations = await patchOperations(kfx.port);
  console.log(
    `AdmissionReview of ${(Buffer.byteLength(body) / 1024).toFixed(1)} KiB (a 3-container Pod); the kfx ` +
      `handler answers with a ${operations}-operation patch. ${CONCURRENCY} concurrent requests, ` +
      `2 × ${SECONDS} s per server and protocol, then ${RATE} req/s for ${SECONDS} s. Node ${process.version}.`,
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
    const a = await measure(floor, protocol, '/');
    const b = await measure(kfx, protocol, '/mutate/proxy');
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
