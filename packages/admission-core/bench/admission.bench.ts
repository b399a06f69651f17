// Benchmark: the admission server against the transport floor, side by side in one run, over TLS
// with keep-alive on HTTP/1.1 and HTTP/2, with a realistic AdmissionReview (a 3-container Pod).
// Run with `pnpm run bench` (builds first); BENCH_SECONDS (5) is each measuring slice and the
// fixed-rate run, BENCH_ROUNDS (3) the rounds. Prints a table and the ratios; asserts nothing.
import { admissionReviewFor, writeDevCertificates } from '@kfx/admission-core';
import {
  notebookPod,
  percentile,
  roundRatio,
  SIDE_BY_SIDE_HEADER,
  sideBySide,
  sideBySideTiming,
  startFloorServer,
  startServer,
  type Contender,
  type Protocol,
} from '@kfx/testenv/bench';
import { postH1 } from '@kfx/testenv';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const options = sideBySideTiming({ slice: SECONDS, rounds: 3, seconds: SECONDS });
const PATH = '/mutate/proxy';

const dir = await mkdtemp(join(tmpdir(), 'kfx-bench-'));
const certs = await writeDevCertificates(dir);
const body = JSON.stringify(admissionReviewFor({ object: notebookPod(), uid: 'bench' }));
const env = { CERT_FILE: certs.certFile, KEY_FILE: certs.keyFile };
const contenders: Contender[] = [
  { name: 'floor (no-op)', path: '/', running: await startFloorServer(env) },
  {
    name: 'kfx admission',
    path: PATH,
    running: await startServer(new URL('kfx-server.ts', import.meta.url), env),
  },
];

async function patchOperations(port: number): Promise<number> {
  const answer = await postH1(port, PATH, body, { ca: certs.caCert });
  const { response } = JSON.parse(answer.body) as { response: { patch?: string } };
  const patch = Buffer.from(response.patch ?? 'W10=', 'base64').toString();
  return (JSON.parse(patch) as unknown[]).length;
}

try {
  const operations = await patchOperations(contenders[1]?.running.port ?? 0);
  console.log(
    `AdmissionReview of ${(Buffer.byteLength(body) / 1024).toFixed(1)} KiB (a 3-container Pod); the kfx ` +
      `handler answers with a ${operations}-operation patch. ${options.concurrency} concurrent requests, ` +
      `${options.rounds} × ${options.slice} s per server and protocol (alternating), then ` +
      `${options.rate} req/s for ${options.seconds} s. Node ${process.version}.`,
  );
  console.log(SIDE_BY_SIDE_HEADER);
  const summary: string[] = [];
  for (const protocol of ['HTTP/1.1', 'HTTP/2'] as Protocol[]) {
    const [floor, kfx] = await sideBySide(contenders, protocol, {
      ...options,
      body,
      ca: certs.caCert,
    });
    if (!floor || !kfx) continue;
    summary.push(
      `${protocol}: kfx/floor throughput ${roundRatio(kfx, floor).toFixed(2)}×, ` +
        `server CPU per request ${(kfx.cpuUsPerRequest / floor.cpuUsPerRequest).toFixed(1)}× the floor, ` +
        `kfx p99 at ${options.rate} req/s ${percentile(kfx.open.latenciesMs, 99).toFixed(2)} ms`,
    );
  }
  console.log(summary.join('\n'));
} finally {
  for (const { running } of contenders) await running.stop();
  await rm(dir, { recursive: true, force: true });
}
