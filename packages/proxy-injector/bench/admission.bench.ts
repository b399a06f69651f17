// Benchmark: the proxy injector behind admission-core against the transport floor (TLS + HTTP,
// fixed answer, no admission work), a no-op webhook and the reference proxy handler of the kit,
// side by side in one run, over HTTP/1.1 and HTTP/2 with keep-alive, on the 3-container notebook
// Pod that admission-core measures with (all from @kfx/testenv/bench). Prints figures and ratios;
// asserts nothing. `pnpm run bench`; BENCH_SLICE_SECONDS (2), BENCH_ROUNDS (5) and BENCH_SECONDS
// (5, the fixed-rate run) make it shorter or longer.
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

const options = sideBySideTiming();
const PATH = '/mutate/proxy-injector';
const server = new URL('webhook-server.ts', import.meta.url);

const dir = await mkdtemp(join(tmpdir(), 'kfx-proxy-injector-bench-'));
const certs = await writeDevCertificates(dir);
const body = JSON.stringify(admissionReviewFor({ object: notebookPod(), uid: 'bench' }));
const env = { CERT_FILE: certs.certFile, KEY_FILE: certs.keyFile };
const contenders: Contender[] = [
  { name: 'floor (no-op)', path: '/', running: await startFloorServer(env) },
  {
    name: 'no-op webhook',
    path: PATH,
    running: await startServer(server, { ...env, WEBHOOK: 'noop' }),
  },
  // The kit's reference handler: both cases of three variables appended to every container.
  {
    name: 'reference proxy',
    path: PATH,
    running: await startServer(server, { ...env, WEBHOOK: 'reference' }),
  },
  { name: 'proxy-injector', path: PATH, running: await startServer(server, env) },
  // BENCH_BASELINE: another build of the injector (e.g. a copy of an earlier dist/index.js).
  ...(process.env.BENCH_BASELINE
    ? [
        {
          name: '  baseline build',
          path: PATH,
          running: await startServer(server, {
            ...env,
            INJECTOR_MODULE: new URL(process.env.BENCH_BASELINE, `file://${process.cwd()}/`).href,
          }),
        },
      ]
    : []),
  {
    name: '  + Java, Node',
    path: PATH,
    running: await startServer(server, { ...env, EXTRAS: '1' }),
  },
];

async function patchOf(port: number): Promise<unknown[]> {
  const answer = await postH1(port, PATH, body, { ca: certs.caCert });
  const { response } = JSON.parse(answer.body) as { response: { patch?: string } };
  return JSON.parse(Buffer.from(response.patch ?? 'W10=', 'base64').toString()) as unknown[];
}

try {
  const operations = (await patchOf(contenders[3]?.running.port ?? 0)).length;
  console.log(
    `AdmissionReview of ${(Buffer.byteLength(body) / 1024).toFixed(1)} KiB (a 3-container notebook Pod); ` +
      `the injector answers with a ${operations}-operation patch. ${options.concurrency} concurrent ` +
      `requests, ${options.rounds} rounds of ${options.slice} s per server and protocol ` +
      `(interleaved), then ${options.rate} req/s for ${options.seconds} s. Node ${process.version}.`,
  );
  console.log(SIDE_BY_SIDE_HEADER);
  const summary: string[] = [];
  for (const protocol of ['HTTP/1.1', 'HTTP/2'] as Protocol[]) {
    const results = await sideBySide(contenders, protocol, {
      ...options,
      body,
      ca: certs.caCert,
    });
    const [floor, noop, reference, injector] = results;
    const baseline = process.env.BENCH_BASELINE ? results[4] : undefined;
    const extras = results.at(-1);
    if (!floor || !noop || !reference || !injector || !extras) continue;
    const ratio = (m: typeof floor) => roundRatio(m, floor).toFixed(2);
    summary.push(
      `${protocol}: proxy-injector/floor throughput ${ratio(injector)}× ` +
        `(no-op webhook ${ratio(noop)}×, reference proxy handler ${ratio(reference)}×, ` +
        `with Java and Node extras ${ratio(extras)}×); ` +
        `proxy-injector/no-op webhook ${roundRatio(injector, noop).toFixed(2)}×; ` +
        (baseline
          ? `proxy-injector/baseline build ${roundRatio(injector, baseline).toFixed(2)}×; `
          : '') +
        `p99 at ${options.rate} req/s ${percentile(injector.open.latenciesMs, 99).toFixed(2)} ms`,
    );
  }
  console.log(summary.join('\n'));
} finally {
  for (const { running } of contenders) await running.stop();
  await rm(dir, { recursive: true, force: true });
}
