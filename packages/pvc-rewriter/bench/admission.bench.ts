// Benchmark: the PVC rewriter behind admission-core against the transport floor and a no-op
// webhook, side by side in one run, over HTTP/1.1 and HTTP/2, on a ReadWriteMany claim as a
// StatefulSet makes it (the apiserver's defaults filled in), with the kit of @kfx/testenv/bench.
// Asserts nothing. `pnpm run bench`; BENCH_SLICE_SECONDS (2), BENCH_ROUNDS (5) and BENCH_SECONDS
// (5, the fixed-rate run) make it shorter or longer.
import { admissionReviewFor, writeDevCertificates } from '@kfx/admission-core';
import {
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
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const options = sideBySideTiming();
const PATH = '/mutate/pvc-rewriter';
const server = new URL('webhook-server.ts', import.meta.url);

const claim = {
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: {
    name: 'data-kale-0',
    namespace: 'team-a',
    labels: { app: 'kale' },
    finalizers: ['kubernetes.io/pvc-protection'],
  },
  spec: {
    accessModes: ['ReadWriteMany'],
    resources: { requests: { storage: '5Gi' } },
    storageClassName: 'vsphere-csi',
    volumeMode: 'Filesystem',
  },
  status: { phase: 'Pending' },
};

const dir = await mkdtemp(join(tmpdir(), 'kfx-pvc-rewriter-bench-'));
const certs = await writeDevCertificates(dir);
const body = JSON.stringify(
  admissionReviewFor({ object: claim, resource: 'persistentvolumeclaims', uid: 'bench' }),
);
const env = { CERT_FILE: certs.certFile, KEY_FILE: certs.keyFile };
const contenders: Contender[] = [
  { name: 'floor (no-op)', path: '/', running: await startFloorServer(env) },
  {
    name: 'no-op webhook',
    path: PATH,
    running: await startServer(server, { ...env, WEBHOOK: 'noop' }),
  },
  { name: 'pvc-rewriter', path: PATH, running: await startServer(server, env) },
];

try {
  console.log(
    `AdmissionReview of ${(Buffer.byteLength(body) / 1024).toFixed(1)} KiB (a ReadWriteMany claim, rewritten ` +
      `vsphere-csi → nfs-client). ${options.concurrency} concurrent requests, ${options.rounds} rounds ` +
      `of ${options.slice} s per server and protocol (interleaved), then ${options.rate} req/s for ` +
      `${options.seconds} s. Node ${process.version}.`,
  );
  console.log(SIDE_BY_SIDE_HEADER);
  const summary: string[] = [];
  for (const protocol of ['HTTP/1.1', 'HTTP/2'] as Protocol[]) {
    const [floor, noop, rewriter] = await sideBySide(contenders, protocol, {
      ...options,
      body,
      ca: certs.caCert,
    });
    if (!floor || !noop || !rewriter) continue;
    const ratio = (m: typeof floor) => roundRatio(m, floor).toFixed(2);
    summary.push(
      `${protocol}: pvc-rewriter/floor throughput ${ratio(rewriter)}× (no-op webhook ${ratio(noop)}×); ` +
        `pvc-rewriter/no-op webhook ${roundRatio(rewriter, noop).toFixed(2)}×; ` +
        `p99 at ${options.rate} req/s ${percentile(rewriter.open.latenciesMs, 99).toFixed(2)} ms`,
    );
  }
  console.log(summary.join('\n'));
} finally {
  for (const { running } of contenders) await running.stop();
  await rm(dir, { recursive: true, force: true });
}
