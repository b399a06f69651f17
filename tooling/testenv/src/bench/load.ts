// Load generator for the benchmarks: keep-alive HTTPS over HTTP/1.1 or HTTP/2, either as fast as
// the server answers (closed loop, for throughput) or at a fixed rate (open loop, for latency).
import { connect, type ClientHttp2Session } from 'node:http2';
import { Agent, request } from 'node:https';

export type Protocol = 'HTTP/1.1' | 'HTTP/2';

export interface Target {
  port: number;
  path: string;
  ca: string;
  body: string;
  protocol: Protocol;
}

export interface Result {
  requests: number;
  errors: number;
  seconds: number;
  latenciesMs: number[];
}

type Send = () => Promise<boolean>;

interface Client {
  send: Send;
  close: () => void;
}

function http1(target: Target, connections: number, body: Buffer): Client {
  const agent = new Agent({ keepAlive: true, maxSockets: connections, ca: target.ca });
  const options = {
    host: '127.0.0.1',
    port: target.port,
    path: target.path,
    method: 'POST',
    agent,
    headers: { 'content-type': 'application/json', 'content-length': body.length },
  };
  const send: Send = () =>
    new Promise((resolve) => {
      const req = request(options, (res) => {
        res.resume();
        res.on('end', () => {
          resolve(res.statusCode === 200);
        });
      });
      req.on('error', () => {
        resolve(false);
      });
      req.end(body);
    });
  return {
    send,
    close: () => {
      agent.destroy();
    },
  };
}

function session(target: Target): Promise<ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const opened = connect(`https://127.0.0.1:${target.port}`, { ca: target.ca });
    opened.once('connect', () => {
      resolve(opened);
    });
    opened.once('error', reject);
  });
}

async function http2(target: Target, connections: number, body: Buffer): Promise<Client> {
  const sessions = await Promise.all(Array.from({ length: connections }, () => session(target)));
  let turn = 0;
  const headers = { ':method': 'POST', ':path': target.path, 'content-type': 'application/json' };
  const send: Send = () =>
    new Promise((resolve) => {
      const stream = sessions[turn++ % sessions.length]?.request(headers);
      if (!stream) {
        resolve(false);
        return;
      }
      let status = 0;
      stream.on('response', (answer) => {
        status = Number(answer[':status']);
      });
      stream.on('data', () => undefined);
      stream.on('end', () => {
        resolve(status === 200);
      });
      stream.on('error', () => {
        resolve(false);
      });
      stream.end(body);
    });
  return {
    send,
    close: () => {
      for (const open of sessions) open.close();
    },
  };
}

/** Returns a function that sends one request and resolves true for a 200. */
function client(target: Target, connections: number): Promise<Client> {
  const body = Buffer.from(target.body);
  return target.protocol === 'HTTP/1.1'
    ? Promise.resolve(http1(target, connections, body))
    : http2(target, connections, body);
}

/** As many requests as the server takes, `concurrency` at a time, for `seconds`. */
export async function closedLoop(
  target: Target,
  concurrency: number,
  seconds: number,
): Promise<Result> {
  const { send, close } = await client(target, target.protocol === 'HTTP/2' ? 2 : concurrency);
  const latenciesMs: number[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        const ok = await send();
        latenciesMs.push(performance.now() - t0);
        if (!ok) errors += 1;
      }
    }),
  );
  close();
  return {
    requests: latenciesMs.length,
    errors,
    seconds: (performance.now() - started) / 1000,
    latenciesMs,
  };
}

/** A request every 1/rate seconds whatever the answers do, so latency is not hidden by waiting. */
export async function openLoop(target: Target, rate: number, seconds: number): Promise<Result> {
  const { send, close } = await client(target, target.protocol === 'HTTP/2' ? 2 : 32);
  // Open the connections first: TLS handshakes are not what this measures.
  await Promise.all(Array.from({ length: 64 }, send));
  const latenciesMs: number[] = [];
  let errors = 0;
  const pending: Promise<void>[] = [];
  const started = performance.now();
  const total = Math.round(rate * seconds);
  for (let i = 0; i < total; i += 1) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    // Latency counts from when the request was due (or sent, if a little early), so a stalled
    // sender shows up too.
    const from = Math.min(due, performance.now());
    pending.push(
      send().then((ok) => {
        latenciesMs.push(performance.now() - from);
        if (!ok) errors += 1;
      }),
    );
  }
  await Promise.all(pending);
  close();
  return { requests: total, errors, seconds: (performance.now() - started) / 1000, latenciesMs };
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}
