// End-to-end benchmark on a real control plane: Pods created per second through kube-apiserver
// with the admission server registered as a mutating webhook, against no webhook at all, against
// a hand-written webhook that answers the same patch without computing it (so the apiserver does
// the same work: the no-op webhook), and against the Go peer of the comparison benchmark
// (@kfx/testenv/bench's, built on first run). Rounds go through the modes forwards, then backwards
// (none, echo, kfx, peer, peer, kfx, echo, none, ...), so that a machine slowing or speeding up
// during the run does not always favour the mode that comes first; each round's Pods are deleted
// after it, so that every round meets the same store. Run with `pnpm run bench:e2e` (builds first).
// Prints figures; asserts nothing.
import { applyManifests, postH1, startControlPlane } from '@kfx/testenv';
import {
  ensurePeer,
  notebookPod,
  percentile,
  startEchoServer,
  startProcess,
  startServer,
} from '@kfx/testenv/bench';
import {
  admissionReviewFor,
  renderWebhookConfiguration,
  writeDevCertificates,
} from '@kfx/admission-core';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request, type RequestOptions } from 'node:https';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { proxyWebhook } from './proxy-webhook.ts';

const PODS = Number(process.env.BENCH_PODS ?? 400);
const CONCURRENCY = 16;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);

const env = await startControlPlane();
const dir = await mkdtemp(join(tmpdir(), 'kfx-bench-e2e-'));
const certs = await writeDevCertificates(dir, { ipAddresses: ['127.0.0.1'] });
const serverEnv = { CERT_FILE: certs.certFile, KEY_FILE: certs.keyFile };
const webhookServer = await startServer(new URL('kfx-server.ts', import.meta.url), serverEnv);
const peerServer = await startProcess(
  ensurePeer((line) => {
    console.log(line);
  }),
  ['-cert', certs.certFile, '-key', certs.keyFile],
  { stderr: 'ignore' },
);

const tls: RequestOptions = {};
await env.kubeConfig.applyToHTTPSOptions(tls);
const agent = new Agent({
  keepAlive: true,
  maxSockets: CONCURRENCY,
  ca: tls.ca,
  cert: tls.cert,
  key: tls.key,
});
const server = new URL(env.server);

function call(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: server.hostname,
        port: server.port,
        path,
        method,
        agent,
        headers: payload
          ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }
          : {},
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, text });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

function pod(name: string, namespace: string) {
  const object = notebookPod(name, namespace);
  // Owner references and managed fields belong to a controller that does not exist here.
  const metadata = { ...object.metadata };
  delete metadata.ownerReferences;
  delete metadata.managedFields;
  return { ...object, metadata };
}

type Mode = 'without' | 'echo' | 'kfx' | 'peer';

/** Which webhook the apiserver calls right now, from dry-run creates. */
async function calledWebhook(): Promise<Mode> {
  for (const refusing of ['echo', 'peer'] as const) {
    const probe = await call(
      'POST',
      '/api/v1/namespaces/bench-probe/pods?dryRun=All',
      pod(`${refusing}-probe`, 'bench-probe'),
    );
    if (probe.status === 403) return refusing;
  }
  const probe = await call(
    'POST',
    '/api/v1/namespaces/bench-probe/pods?dryRun=All',
    pod('probe', 'bench-probe'),
  );
  if (probe.status !== 201) throw new Error(`dry-run create failed: ${probe.status} ${probe.text}`);
  return probe.text.includes('HTTPS_PROXY') ? 'kfx' : 'without';
}

async function switchTo(mode: Mode): Promise<void> {
  await call(
    'DELETE',
    '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/kfx-bench',
  );
  if (mode !== 'without')
    await applyManifests(env.kubeConfig, JSON.stringify(configurations[mode]));
  const deadline = Date.now() + 30_000;
  while ((await calledWebhook()) !== mode) {
    if (Date.now() > deadline) throw new Error(`the apiserver did not switch to ${mode}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function round(
  namespace: string,
): Promise<{ podsPerSecond: number; latenciesMs: number[]; errors: number }> {
  await applyManifests(env.kubeConfig, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespace },
  });
  const latenciesMs: number[] = [];
  let next = 0;
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < PODS) {
        const name = `pod-${next++}`;
        const t0 = performance.now();
        const answer = await call(
          'POST',
          `/api/v1/namespaces/${namespace}/pods`,
          pod(name, namespace),
        );
        latenciesMs.push(performance.now() - t0);
        if (answer.status !== 201) errors += 1;
      }
    }),
  );
  const podsPerSecond = PODS / ((performance.now() - started) / 1000);
  // Unscheduled Pods go at once: the next round meets a store of the same size.
  const cleared = await call('DELETE', `/api/v1/namespaces/${namespace}/pods`);
  if (cleared.status !== 200) {
    throw new Error(`deleting the Pods of ${namespace} failed: ${cleared.status} ${cleared.text}`);
  }
  return { podsPerSecond, latenciesMs, errors };
}

/** The patch kfx answers for the benchmark's Pods (they differ only in name). */
async function kfxPatch(): Promise<string> {
  const review = admissionReviewFor({ object: pod('any', 'bench-0') });
  const answer = await postH1(webhookServer.port, '/mutate/proxy', JSON.stringify(review), {
    ca: certs.caCert,
  });
  return (JSON.parse(answer.body) as { response: { patch: string } }).response.patch;
}

const echoServer = await startEchoServer({ ...serverEnv, PATCH: await kfxPatch() });

const podCreate = [
  { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] },
];
const echoWebhook = { name: 'echo', path: '/', type: 'mutating', failureMode: 'deny' } as const;
const peerWebhook = {
  name: 'peer',
  path: '/mutate',
  type: 'mutating',
  failureMode: 'deny',
} as const;
const configuration = (
  port: number,
  webhook: typeof proxyWebhook | typeof echoWebhook | typeof peerWebhook,
) =>
  renderWebhookConfiguration({
    kind: 'mutating',
    name: 'kfx-bench',
    namespace: 'kfx-system',
    url: `https://127.0.0.1:${port}`,
    caBundle: certs.caCert,
    webhooks: [{ webhook, rules: podCreate, failurePolicy: 'Fail' }],
  });
const configurations = {
  kfx: configuration(webhookServer.port, proxyWebhook),
  echo: configuration(echoServer.port, echoWebhook),
  peer: configuration(peerServer.port, peerWebhook),
};

try {
  await applyManifests(env.kubeConfig, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'bench-probe' },
  });
  const modes: Mode[] = ['without', 'echo', 'kfx', 'peer'];
  const results = new Map(
    modes.map((mode) => [
      mode,
      { podsPerSecond: [] as number[], latenciesMs: [] as number[], errors: 0 },
    ]),
  );
  await round('bench-warmup'); // apiserver caches, connections, JIT
  for (let cycle = 0; cycle < ROUNDS; cycle += 1) {
    const order = cycle % 2 === 0 ? modes : [...modes].reverse();
    for (const mode of order) {
      await switchTo(mode);
      const result = await round(`bench-${cycle}-${mode}`);
      const r = results.get(mode);
      r?.podsPerSecond.push(result.podsPerSecond);
      r?.latenciesMs.push(...result.latenciesMs);
      if (r) r.errors += result.errors;
    }
  }
  // The median round: one round that a busy moment on the machine slowed does not move it.
  const rate = (mode: Mode) => percentile(results.get(mode)?.podsPerSecond ?? [], 50);
  console.log(
    `${PODS} Pods (3 containers each) per round, ${CONCURRENCY} at a time, ${ROUNDS} rounds per ` +
      "mode in cycles that alternate their order (each round's Pods deleted after it); Pods/s is " +
      'the median round. kube-apiserver, etcd, the webhook and this client share the machine.',
  );
  console.log('webhook                    Pods/s  create p50 ms  p99 ms  errors');
  const labels: Record<Mode, string> = {
    without: 'none',
    echo: 'hand-written, same patch',
    kfx: 'kfx admission (patch)',
    peer: 'Go peer',
  };
  for (const mode of modes) {
    const r = results.get(mode);
    if (!r) continue;
    console.log(
      `${labels[mode].padEnd(24)} ${rate(mode).toFixed(0).padStart(8)} ${percentile(r.latenciesMs, 50).toFixed(2).padStart(14)} ` +
        `${percentile(r.latenciesMs, 99).toFixed(2).padStart(7)} ${String(r.errors).padStart(7)}`,
    );
  }
  // kfx against the no-op webhook cycle by cycle: in every cycle their rounds run one after the
  // other, so their ratio carries less of the machine's drift than a ratio of medians.
  const paired = (results.get('kfx')?.podsPerSecond ?? []).map(
    (kfx, cycle) => kfx / (results.get('echo')?.podsPerSecond[cycle] ?? Number.NaN),
  );
  const within = paired.filter((ratio) => ratio >= 0.95).length;
  console.log(
    `kfx/none: ${(rate('kfx') / rate('without')).toFixed(2)}× Pods per second; ` +
      `echo/none: ${(rate('echo') / rate('without')).toFixed(2)}×; kfx/echo: ${(rate('kfx') / rate('echo')).toFixed(2)}× ` +
      `(target ≥ 0.95); kfx/peer: ${(rate('kfx') / rate('peer')).toFixed(2)}×`,
  );
  console.log(
    `kfx/echo cycle by cycle: median ${percentile(paired, 50).toFixed(2)}×, from ` +
      `${Math.min(...paired).toFixed(2)}× to ${Math.max(...paired).toFixed(2)}× ` +
      `(${paired.map((ratio) => ratio.toFixed(2)).join(' ')}); ${within} of ${paired.length} ` +
      'cycles at 0.95× or more',
  );
  console.log(
    `load average (1, 5, 15 min) at the end: ${loadavg()
      .map((v) => v.toFixed(2))
      .join(' ')}`,
  );
} finally {
  agent.destroy();
  await webhookServer.stop();
  await echoServer.stop();
  await peerServer.stop();
  await env.stop();
  await rm(dir, { recursive: true, force: true });
}
