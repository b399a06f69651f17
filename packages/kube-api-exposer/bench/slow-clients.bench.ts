// Benchmark: many slow, silent or long-lived clients against kfx expose-api in front of a real
// kube-apiserver, with the proxy's limits at their defaults and with them set out of reach (as
// the proxy was before it had them), side by side in one run. The clients come from one address
// (127.0.0.2) or from 3,000 (127.1.x.y); while they are held, tenant B (another namespace's
// token, from 127.0.0.1) makes 30 requests, each on a new connection. For each kind of client
// it prints the proxy's peak RSS and open file descriptors, what the clients got (held open,
// answered, refused at connect), how many of B's requests succeeded, and the ratios. Run with
// `pnpm run bench:slow-clients`; asserts nothing.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import https from 'node:https';
import { join } from 'node:path';
import tls from 'node:tls';
import { mintKubeconfig } from '@kfx/kube-api-exposer';
import { KubeClient } from '@kfx/kube-runtime/client';
import { applyManifests, startControlPlane } from '@kfx/testenv';
import type { KubernetesObject } from '@kubernetes/client-node';
import { pino } from 'pino';
import { startProxyProcess, writeServingFiles, type ProxyFiles } from './proxy-process.ts';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 3000);
/** Connections opened at the same time while the clients arrive. */
const PARALLEL = 50;
/** How long the clients stay once all have arrived, while the proxy is watched. */
const HOLD_MS = Number(process.env.BENCH_HOLD_MS ?? 5000);
const CONFIGS = [
  { name: 'defaults', options: {} },
  {
    // As the proxy was before it had caps per source, per identity and before authentication:
    // the connection cap of 500 alone, the handshake within the 30 s of the head.
    name: 'cap only',
    options: {
      maxLongRunning: 500,
      maxLongRunningPerIdentity: 500,
      maxConnectionsPerSource: 500,
      maxConnectionsPerIdentity: 500,
      maxUnauthenticatedConnections: 500,
      maxUnauthenticatedConnectionsPerSource: 500,
      handshakeTimeout: 30,
      headersTimeout: 30,
    },
  },
  {
    name: 'unbounded',
    options: {
      // Every cap on connections and long-running requests is a share of this one.
      maxConnections: 1_000_000,
      maxRequestsInflight: 1_000_000,
      maxMutatingRequestsInflight: 1_000_000,
      requestBodyTimeout: 3600,
    },
  },
] as const;
type Kind = 'slow body' | 'silent' | 'silent, many' | 'watch' | 'watch, many' | 'watch, tenants';
const KINDS: Kind[] = [
  'slow body',
  'silent',
  'silent, many',
  'watch',
  'watch, many',
  'watch, tenants',
];
/** The namespaces whose tokens `watch, tenants` spreads its watches over. */
const TENANTS = 60;
/** The address of client `i` of a kind: one address, or one of many (the whole 127/8 is local). */
const addressOf = (kind: Kind, i: number) =>
  kind.endsWith(', many') || kind === 'watch, tenants'
    ? `127.1.${String(Math.floor(i / 250))}.${String((i % 250) + 1)}`
    : '127.0.0.2';
const B_REQUESTS = 30;

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
  /** Tenant B's requests that got 200 while the clients were held. */
  bOk: number;
}

try {
  const reader = (namespace: string) => [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'reader', namespace } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'reader', namespace },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'reader', namespace },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace }],
    },
  ];
  const tenants = Array.from({ length: TENANTS }, (_, i) => `bench-t${String(i)}`);
  await applyManifests(env.kubeConfig, [
    ...reader('bench'),
    ...reader('bench-b'),
    ...tenants.flatMap(reader),
  ] as KubernetesObject[]);
  const mint = async (serviceAccount: string) =>
    (await mintKubeconfig({ serviceAccount, server: env.server, client: admin })).token.token;
  const token = await mint('bench/reader');
  const tenantB = await mint('bench-b/reader');
  const tenantTokens = await Promise.all(tenants.map((t) => mint(`${t}/reader`)));
  const { files } = writeServingFiles(dir, env.caCert);

  const watchHead = (namespace: string, bearer: string) =>
    `GET /api/v1/namespaces/${namespace}/configmaps?watch=true HTTP/1.1\r\nHost: bench\r\n` +
    `Authorization: Bearer ${bearer}\r\n\r\n`;
  /** The request head client `i` of a kind writes once TLS is up, if any. */
  const heads: Record<Kind, (i: number) => string | undefined> = {
    // Anonymous, as the apiserver reads a body this small before it answers even a refusal.
    'slow body': () =>
      'POST /api/v1/namespaces/bench/configmaps HTTP/1.1\r\nHost: bench\r\n' +
      'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
    silent: () => undefined,
    'silent, many': () => undefined,
    watch: () => watchHead('bench', token),
    'watch, many': () => watchHead('bench', token),
    'watch, tenants': (i) => watchHead(tenants[i % TENANTS] ?? '', tenantTokens[i % TENANTS] ?? ''),
  };

  const results: Result[] = [];
  for (const kind of KINDS) {
    for (const config of CONFIGS) {
      log(`${kind}: ${CLIENTS} clients against the proxy with ${config.name} limits…`);
      results.push(await measure(kind, config.name, config.options, heads[kind], files, tenantB));
    }
  }

  log('');
  log(`${CLIENTS} clients of each kind, held ${HOLD_MS / 1000} s after the last one arrived`);
  log(
    'clients       limits      RSS idle (MiB)  peak RSS (MiB)  peak fds  B ok   what the clients got',
  );
  for (const r of results) {
    const got = [...r.outcomes].map(([what, n]) => `${n} ${what}`).join(', ');
    log(
      `${r.kind.padEnd(13)} ${r.config.padEnd(10)} ${r.baselineMiB.toFixed(0).padStart(14)}  ${r.peakMiB.toFixed(0).padStart(14)}  ${String(r.peakFds).padStart(8)}  ${String(r.bOk).padStart(2)}/${B_REQUESTS}  ${got}`,
    );
  }
  log('');
  log('tenant B: 30 requests while the clients were held, each on a new connection from 127.0.0.1');
  log('ratios, unbounded / defaults (peak RSS above idle; peak fds):');
  for (const kind of KINDS) {
    const bounded = results.find((r) => r.kind === kind && r.config === 'defaults');
    const unbounded = results.find((r) => r.kind === kind && r.config === 'unbounded');
    if (bounded === undefined || unbounded === undefined) continue;
    const grown = (r: Result) => r.peakMiB - r.baselineMiB;
    log(
      `  ${kind.padEnd(12)} RSS ${(grown(unbounded) / grown(bounded)).toFixed(1)}× (${grown(unbounded).toFixed(0)} vs ${grown(bounded).toFixed(0)} MiB), fds ${(unbounded.peakFds / bounded.peakFds).toFixed(1)}× (${unbounded.peakFds} vs ${bounded.peakFds})`,
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
  head: (i: number) => string | undefined,
  files: ProxyFiles,
  tenantB: string,
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
    await openClient(Number(port), undefined, '127.0.0.1').then((c) => c.socket.destroy());
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
      const batch = Array.from({ length: Math.min(PARALLEL, CLIENTS - i) }, (_, j) =>
        openClient(Number(port), head(i + j), addressOf(kind, i + j)),
      );
      clients.push(...(await Promise.all(batch)));
    }
    const held = new Promise((resolve) => setTimeout(resolve, HOLD_MS));
    let bOk = 0;
    for (let i = 0; i < B_REQUESTS; i++)
      if ((await tenantBRequest(proxy.url, tenantB)) === 200) bOk++;
    await held;
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
    return { kind, config, baselineMiB, peakMiB, peakFds, outcomes, bOk };
  } finally {
    await proxy.stop();
  }
}

interface Client {
  socket: tls.TLSSocket;
  /** `refused at connect`, `held open` (no answer), `answered 429`, `watching (200)`, … */
  outcome(): string;
}

/** One request of tenant B on a new connection from 127.0.0.1: its status, 0 if it failed. */
function tenantBRequest(url: string, bearer: string): Promise<number> {
  return new Promise((resolve) => {
    const request = https.get(`${url}/api/v1/namespaces/bench-b/configmaps`, {
      agent: false,
      rejectUnauthorized: false,
      localAddress: '127.0.0.1',
      headers: { Authorization: `Bearer ${bearer}` },
      timeout: 20_000,
    });
    request.on('response', (response) => {
      response.resume();
      response.on('end', () => {
        resolve(response.statusCode ?? 0);
      });
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => {
      resolve(0);
    });
  });
}

/** Connects from `localAddress`, writes `head` (if any) once TLS is up, and keeps the connection. */
function openClient(port: number, head: string | undefined, localAddress: string): Promise<Client> {
  return new Promise((resolve) => {
    // tls.connect passes localAddress on to net.connect; its type does not name it.
    const options: tls.ConnectionOptions & { localAddress: string } = {
      host: '127.0.0.1',
      port,
      localAddress,
      rejectUnauthorized: false,
    };
    const socket = tls.connect(options);
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
