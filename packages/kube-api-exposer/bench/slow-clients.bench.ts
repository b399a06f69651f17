// Benchmark: many slow, silent or long-lived clients against kfx expose-api in front of a real
// kube-apiserver, with the proxy's limits at their defaults and with them set out of reach (as
// the proxy was before it had them), side by side in one run. For each kind of client it prints
// the proxy's peak RSS and open file descriptors, what the clients got (held open, answered,
// refused at connect) and the ratios. Run with `pnpm run bench:slow-clients`; asserts nothing.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { createCertificateAuthority } from '@kfx/dev-certs';
import { mintKubeconfig } from '@kfx/kube-api-exposer';
import { KubeClient } from '@kfx/kube-runtime';
import { applyManifests, startControlPlane } from '@kfx/testenv';
import type { KubernetesObject } from '@kubernetes/client-node';
import { pino } from 'pino';
import { startProxyProcess, type ProxyFiles } from './proxy-process.ts';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 3000);
/** Connections opened at the same time while the clients arrive. */
const PARALLEL = 50;
/** How long the clients stay once all have arrived, while the proxy is watched. */
const HOLD_MS = Number(process.env.BENCH_HOLD_MS ?? 5000);
const CONFIGS = [
  { name: 'defaults', options: {} },
  {
    name: 'unbounded',
    options: {
      maxConnections: 1_000_000,
      maxRequestsInflight: 1_000_000,
      maxMutatingRequestsInflight: 1_000_000,
      requestBodyTimeout: 3600,
    },
  },
] as const;
type Kind = 'slow body' | 'silent' | 'watch';
const KINDS: Kind[] = ['slow body', 'silent', 'watch'];

const log = (line: string) => {
  process.stdout.write(`${line}\n`);
};
const dir = mkdtempSync(join(tmpdir(), 'kfx-exposer-slow-bench-'));
log(`kfx expose-api slow-clients benchmark (Node ${process.versions.node}), ${CLIENTS} clients`);
log('starting a control plane…');
const env = await startControlPlane();
const admin = KubeClient.fromKubeConfig(env.kubeConfig, { logger: pino({ level: 'silent' }) });

interface Result {
  kind: Kind;
  config: string;
  baselineMiB: number;
  peakMiB: number;
  peakFds: number;
  outcomes: Map<string, number>;
}

try {
  await applyManifests(env.kubeConfig, [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'reader', namespace: 'bench' } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'reader', namespace: 'bench' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'reader', namespace: 'bench' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: 'bench' }],
    },
  ] as KubernetesObject[]);
  const { token } = (
    await mintKubeconfig({ serviceAccount: 'bench/reader', server: env.server, client: admin })
  ).token;
  const ca = createCertificateAuthority();
  const serving = ca.issue({ commonName: 'bench', ipAddresses: ['127.0.0.1'] });
  const files: ProxyFiles = {
    cert: join(dir, 'tls.crt'),
    key: join(dir, 'tls.key'),
    apiCa: join(dir, 'apiserver-ca.crt'),
  };
  writeFileSync(files.cert, serving.cert);
  writeFileSync(files.key, serving.key);
  writeFileSync(files.apiCa, env.caCert);

  const heads: Record<Kind, string | undefined> = {
    // Anonymous, as the apiserver reads a body this small before it answers even a refusal.
    'slow body':
      'POST /api/v1/namespaces/bench/configmaps HTTP/1.1\r\nHost: bench\r\n' +
      'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
    silent: undefined,
    watch:
      'GET /api/v1/namespaces/bench/configmaps?watch=true HTTP/1.1\r\nHost: bench\r\n' +
      `Authorization: Bearer ${token}\r\n\r\n`,
  };

  const results: Result[] = [];
  for (const kind of KINDS) {
    for (const config of CONFIGS) {
      log(`${kind}: ${CLIENTS} clients against the proxy with ${config.name} limits…`);
      results.push(await measure(kind, config.name, config.options, heads[kind], files));
    }
  }

  log('');
  log(`${CLIENTS} clients of each kind, held ${HOLD_MS / 1000} s after the last one arrived`);
  log('clients     limits      RSS idle (MiB)  peak RSS (MiB)  peak fds   what the clients got');
  for (const r of results) {
    const got = [...r.outcomes].map(([what, n]) => `${n} ${what}`).join(', ');
    log(
      `${r.kind.padEnd(11)} ${r.config.padEnd(10)} ${r.baselineMiB.toFixed(0).padStart(14)}  ${r.peakMiB.toFixed(0).padStart(14)}  ${String(r.peakFds).padStart(8)}   ${got}`,
    );
  }
  log('');
  log('ratios, unbounded / defaults (peak RSS above idle; peak fds):');
  for (const kind of KINDS) {
    const bounded = results.find((r) => r.kind === kind && r.config === 'defaults');
    const unbounded = results.find((r) => r.kind === kind && r.config === 'unbounded');
    if (bounded === undefined || unbounded === undefined) continue;
    const grown = (r: Result) => r.peakMiB - r.baselineMiB;
    log(
      `  ${kind.padEnd(10)} RSS ${(grown(unbounded) / grown(bounded)).toFixed(1)}× (${grown(unbounded).toFixed(0)} vs ${grown(bounded).toFixed(0)} MiB), fds ${(unbounded.peakFds / bounded.peakFds).toFixed(1)}× (${unbounded.peakFds} vs ${bounded.peakFds})`,
    );
  }
} finally {
  admin.close();
  await env.stop();
  rmSync(dir, { recursive: true, force: true });
}

/** One proxy process, `CLIENTS` clients of one kind, the proxy's memory and fds sampled. */
async function measure(
  kind: Kind,
  config: string,
  options: object,
  head: string | undefined,
  files: ProxyFiles,
): Promise<Result> {
  const proxy = await startProxyProcess('kfx-proxy.ts', {
    files,
    upstream: env.server,
    accessLog: '/dev/null',
    env: { EXPOSER_OPTIONS: JSON.stringify(options) },
  });
  const { port } = new URL(proxy.url);
  try {
    // Settle after start-up (module loading, the first TLS handshake) before the idle reading.
    await openClient(Number(port), undefined).then((c) => c.socket.destroy());
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const baselineMiB = rssMiB(proxy.pid).current;
    let peakFds = 0;
    let peakMiB = baselineMiB;
    const sample = () => {
      peakFds = Math.max(peakFds, fdCount(proxy.pid));
      peakMiB = Math.max(peakMiB, rssMiB(proxy.pid).current);
    };
    const sampler = setInterval(sample, 100);
    const clients: Client[] = [];
    for (let i = 0; i < CLIENTS; i += PARALLEL) {
      const batch = Array.from({ length: Math.min(PARALLEL, CLIENTS - i) }, () =>
        openClient(Number(port), head),
      );
      clients.push(...(await Promise.all(batch)));
    }
    await new Promise((resolve) => setTimeout(resolve, HOLD_MS));
    clearInterval(sampler);
    sample();
    // The kernel's own peak as well: samples can miss a short spike.
    peakMiB = Math.max(peakMiB, rssMiB(proxy.pid).peak);
    const outcomes = new Map<string, number>();
    for (const client of clients) {
      const what = client.outcome();
      outcomes.set(what, (outcomes.get(what) ?? 0) + 1);
    }
    for (const client of clients) client.socket.destroy();
    return { kind, config, baselineMiB, peakMiB, peakFds, outcomes };
  } finally {
    await proxy.stop();
  }
}

interface Client {
  socket: tls.TLSSocket;
  /** `refused at connect`, `held open` (no answer), `answered 429`, `watching (200)`, … */
  outcome(): string;
}

/** Connects, writes `head` (if any) once TLS is up, and keeps the connection as it goes. */
function openClient(port: number, head: string | undefined): Promise<Client> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false });
    let connected = false;
    let closed = false;
    let firstLine: string | undefined;
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      firstLine ??= chunk.split('\r\n')[0];
    });
    socket.on('error', () => undefined);
    const outcome = () => {
      if (!connected) return 'refused at connect';
      const status = firstLine?.split(' ')[1];
      if (status === undefined) return closed ? 'closed without an answer' : 'held open';
      if (status === '200' && !closed) return 'watching (200)';
      return `answered ${status}`;
    };
    socket.once('close', () => {
      closed = true;
      if (!connected) resolve({ socket, outcome });
    });
    socket.once('secureConnect', () => {
      connected = true;
      if (head !== undefined) socket.write(head);
      resolve({ socket, outcome });
    });
  });
}

function rssMiB(pid: number): { current: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1]);
  return { current: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

function fdCount(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}
