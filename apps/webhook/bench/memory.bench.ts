// Benchmark: the memory of the built kfx-webhook under a burst, with its bounds and without, with
// the V8 heap flags the chart derives from the container memory limit and without, side by side
// in one run. 128 connections (half HTTP/1.1, half HTTP/2) send AdmissionReviews back to back for
// BENCH_SECONDS: one in four a Pod with 10,000 containers (341 KiB, which the proxy injector turns
// into a 5.8 MB answer), the others a 3-container Pod. Prints each configuration's idle and peak
// RSS (VmHWM) against the chart's limit, what the clients got, and the small reviews' latency.
// Run with `pnpm run bench` (builds the bundle first); asserts nothing.
import { createCertificateAuthority } from '@kfx/dev-certs';
import { percentile } from '@kfx/testenv/bench';
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type ClientHttp2Session } from 'node:http2';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { CHART_LIMIT_MIB, heapFlags } from './heap-flags.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 128);
const CONTAINERS = 10_000;
const LIMIT_MIB = CHART_LIMIT_MIB;

/** Every bound of the server set out of reach: the server as it was before it had them. */
const UNBOUNDED = {
  maxInFlight: 1_000_000_000,
  maxAddressInFlight: 1_000_000_000,
  maxInFlightBytes: 1_000_000_000_000,
  maxConnectionBytes: 1_000_000_000_000,
  maxAddressBytes: 1_000_000_000_000,
  maxPatchBytes: 100_000_000_000,
  answerTimeoutMs: 1_000_000_000,
  maxConnections: 1_000_000_000,
  maxConcurrentStreams: 4_294_967_295,
  maxJsonValues: 1_000_000_000,
};

const CONFIGURATIONS = [
  { name: 'no bounds, V8 defaults', limits: UNBOUNDED, nodeArgs: [] },
  { name: 'no bounds, heap flags', limits: UNBOUNDED, nodeArgs: heapFlags(LIMIT_MIB) },
  { name: 'bounds, V8 defaults', limits: {}, nodeArgs: [] },
  { name: 'bounds, heap flags (chart)', limits: {}, nodeArgs: heapFlags(LIMIT_MIB) },
];

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'kfx-webhook-memory-'));
const authority = createCertificateAuthority({ commonName: 'bench CA' });
const serving = authority.issue({ commonName: 'kfx-webhook', ipAddresses: ['127.0.0.1'] });
writeFileSync(join(dir, 'tls.crt'), serving.cert);
writeFileSync(join(dir, 'tls.key'), serving.key);

function review(uid: string, containers: { name: string; image: string }[]) {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: uid, namespace: 'team-a', labels: { app: 'bench' } },
    spec: { containers },
  };
  return Buffer.from(
    JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid,
        kind: { group: '', version: 'v1', kind: 'Pod' },
        resource: { group: '', version: 'v1', resource: 'pods' },
        namespace: 'team-a',
        operation: 'CREATE',
        userInfo: { username: 'bench' },
        object: pod,
        oldObject: null,
        dryRun: false,
      },
    }),
  );
}

const small = review(
  'small',
  ['main', 'sidecar', 'logs'].map((name) => ({ name, image: `registry.example/${name}:1.0` })),
);
const big = review(
  'big',
  Array.from({ length: CONTAINERS }, (_, i) => ({ name: `c${i}`, image: 'busybox' })),
);

interface Server {
  child: ChildProcessByStdio<null, Readable, null>;
  port: number;
}

function startWebhook(config: string, nodeArgs: string[]): Promise<Server> {
  const env = { ...process.env };
  delete env.KUBECONFIG; // no API access: the handlers run without their caches
  const child = spawn(process.execPath, [...nodeArgs, main, '--config', config], {
    env: { ...env, KUBERNETES_SERVICE_HOST: '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((l) => l.includes('admission server listening'));
      if (!line) return;
      child.stdout.off('data', onData);
      child.stdout.resume(); // one log line per admission: read and dropped
      resolve({ child, port: (JSON.parse(line) as { port: number }).port });
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => {
      reject(new Error(`kfx-webhook exited with ${String(code)}: ${output}`));
    });
  });
}

function mib(pid: number | undefined, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const text = readFileSync(`/proc/${String(pid)}/status`, 'utf8');
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(text)?.[1]) / 1024;
  } catch {
    return Number.NaN;
  }
}

const PATH = '/mutate/proxy-injector';

function postH1(agent: Agent, port: number, body: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: PATH,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': body.length },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          resolve(String(res.statusCode));
        });
        res.on('error', () => {
          resolve('error');
        });
      },
    );
    req.on('error', () => {
      resolve('error');
    });
    req.end(body);
  });
}

function postH2(session: ClientHttp2Session, body: Buffer): Promise<string> {
  return new Promise((resolve) => {
    if (session.destroyed || session.closed) {
      resolve('error');
      return;
    }
    const stream = session.request({
      ':method': 'POST',
      ':path': PATH,
      'content-type': 'application/json',
      'content-length': body.length,
    });
    let status = 'error';
    stream.on('response', (headers) => {
      status = String(headers[':status']);
    });
    stream.on('data', () => undefined);
    stream.on('close', () => {
      resolve(status);
    });
    stream.on('error', () => undefined);
    stream.end(body);
  });
}

function openSession(port: number): Promise<ClientHttp2Session> {
  return new Promise((resolve) => {
    const session = connect(`https://127.0.0.1:${port}`, { ca: authority.cert });
    session.on('error', () => undefined);
    session.once('connect', () => {
      resolve(session);
    });
    session.once('close', () => {
      resolve(session);
    });
  });
}

interface Result {
  peak: number;
  counts: Map<string, number>;
  smallMs: number[];
}

async function burst(port: number, pid: number | undefined): Promise<Result> {
  const h1 = new Agent({ keepAlive: true, maxSockets: CONNECTIONS / 2, ca: authority.cert });
  const sessions: ClientHttp2Session[] = [];
  for (let i = 0; i < CONNECTIONS / 2; i += 1) sessions.push(await openSession(port));
  const counts = new Map<string, number>();
  const smallMs: number[] = [];
  let peak = 0;
  const sampler = setInterval(() => {
    const now = mib(pid, 'VmRSS'); // NaN once the process is gone
    if (now > peak) peak = now;
  }, 100);
  const deadline = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, lane) => {
      for (let sent = 0; performance.now() < deadline; sent += 1) {
        const large = (sent + lane) % 4 === 0;
        const body = large ? big : small;
        const started = performance.now();
        let status: string;
        if (lane % 2 === 0) {
          status = await postH1(h1, port, body);
        } else {
          // A session the server closed (a cut connection) is opened again, as a client would.
          let session = sessions[lane >> 1];
          if (!session || session.destroyed || session.closed) {
            session = sessions[lane >> 1] = await openSession(port);
          }
          status = await postH2(session, body);
        }
        const key = `${large ? 'large' : 'small'} ${status}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
        if (!large && status === '200') smallMs.push(performance.now() - started);
      }
    }),
  );
  clearInterval(sampler);
  for (const session of sessions) session.destroy();
  h1.destroy();
  // VmHWM is the kernel's own peak; gone with a process that died, then the samples stand.
  const highWater = mib(pid, 'VmHWM');
  return { peak: Number.isNaN(highWater) ? peak : Math.max(peak, highWater), counts, smallMs };
}

const log = (line: string) => {
  process.stdout.write(`${line}\n`);
};

try {
  log(
    `kfx-webhook (proxy injector) under ${CONNECTIONS} connections (half HTTP/1.1, half HTTP/2) ` +
      `for ${SECONDS} s each; one review in four a Pod with ${CONTAINERS} containers ` +
      `(${(big.length / 1024).toFixed(0)} KiB), the others a 3-container Pod ` +
      `(${(small.length / 1024).toFixed(1)} KiB). Heap flags: ${heapFlags(LIMIT_MIB).join(' ')} ` +
      `(the chart's for a ${LIMIT_MIB}Mi limit). Node ${process.version}.`,
  );
  log(
    'configuration                idle MiB  peak MiB  of limit | large 200  small 200    429  other | small p50 ms  p99 ms',
  );
  const peaks = new Map<string, number>();
  for (const [index, configuration] of CONFIGURATIONS.entries()) {
    const file = join(dir, `config-${index}.yaml`);
    writeFileSync(
      file,
      JSON.stringify({
        port: 0,
        metricsPort: 0,
        tls: { certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') },
        proxyInjector: {
          httpProxy: 'http://proxy.corp.example:3128',
          httpsProxy: 'http://proxy.corp.example:3128',
          noProxy: ['.corp.example'],
        },
        limits: configuration.limits,
      }),
    );
    const server = await startWebhook(file, configuration.nodeArgs);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const idle = mib(server.child.pid, 'VmRSS');
    const result = await burst(server.port, server.child.pid);
    // A process that ran out of heap during the burst has exited already.
    const { exitCode, signalCode } = server.child;
    const crashed = exitCode !== null || signalCode !== null;
    if (!crashed) {
      const exited = new Promise((resolve) => server.child.once('exit', resolve));
      server.child.kill('SIGKILL');
      await exited;
    }
    const count = (prefix: string) =>
      [...result.counts].filter(([k]) => k.startsWith(prefix)).reduce((s, [, n]) => s + n, 0);
    const others = [...result.counts]
      .filter(([k]) => !/ (200|429)$/.test(k))
      .reduce((s, [, n]) => s + n, 0);
    peaks.set(configuration.name, result.peak);
    log(
      `${configuration.name.padEnd(28)} ${idle.toFixed(0).padStart(8)} ${result.peak.toFixed(0).padStart(9)} ` +
        `${`${((100 * result.peak) / LIMIT_MIB).toFixed(0)}%`.padStart(9)} | ` +
        `${String(count('large 200')).padStart(9)} ${String(count('small 200')).padStart(10)} ` +
        `${String(count('large 429') + count('small 429')).padStart(6)} ${String(others).padStart(6)} | ` +
        `${percentile(result.smallMs, 50).toFixed(1).padStart(12)} ${percentile(result.smallMs, 99).toFixed(1).padStart(7)}` +
        (crashed ? `  died during the burst (${String(signalCode ?? exitCode)})` : ''),
    );
  }
  const before = peaks.get(CONFIGURATIONS[0]?.name ?? '') ?? Number.NaN;
  const after = peaks.get(CONFIGURATIONS[3]?.name ?? '') ?? Number.NaN;
  log(
    `peak RSS with the bounds and the chart's heap flags: ${after.toFixed(0)} MiB, ` +
      `${(after / before).toFixed(2)}× the unbounded server's ${before.toFixed(0)} MiB; ` +
      `the limit is ${LIMIT_MIB} MiB.`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
