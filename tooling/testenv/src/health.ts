// Health probes of processes on 127.0.0.1. Each request gets its own agent (`agent: false`):
// Node's global agent follows HTTP(S)_PROXY under NODE_USE_ENV_PROXY=1, and a probe of a local
// process must never leave through a proxy.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { ManagedProcess } from './processes.js';
import { waitFor, type WaitOptions } from './wait.js';

export interface ClientTls {
  ca?: string;
  cert?: string;
  key?: string;
}

export interface ProbeResult {
  status: number;
  body: string;
}

export function probe(url: string, tls: ClientTls = {}): Promise<ProbeResult> {
  const send = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { ...tls, agent: false, timeout: 5000 }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end();
  });
}

/** `true` when the endpoint answers 200, else what it answered (for "last saw" messages). */
export async function healthy(url: string, tls?: ClientTls): Promise<string | true> {
  try {
    const res = await probe(url, tls);
    return res.status === 200 || `${url} answered ${res.status}: ${res.body.slice(0, 300)}`;
  } catch (error) {
    return (error as Error).message;
  }
}

export class NotHealthyError extends Error {
  constructor(name: string, reason: string, logTail: string) {
    super(
      `${name} did not start: ${reason}${logTail ? `\n--- last lines of its log ---\n${logTail}` : ''}`,
    );
    this.name = 'NotHealthyError';
  }
}

/**
 * Waits as `waitFor` does for what a starting process should bring about, and stops at once
 * when the process exits (what it waits for will never come); either way a failure is a
 * NotHealthyError with the end of its log.
 */
export async function waitWhileRunning<T>(
  process: ManagedProcess,
  check: () => Promise<{ done: true; value: T } | { done: false; saw: string }>,
  options: WaitOptions,
): Promise<T> {
  const outcome = await waitFor<{ value: T } | { failed: string }>(async () => {
    const status = process.exitStatus();
    if (status)
      return { done: true, value: { failed: `exited with ${status.signal ?? status.code}` } };
    const result = await check();
    return result.done ? { done: true, value: { value: result.value } } : result;
  }, options).catch((error: unknown) => ({ failed: (error as Error).message }));
  if ('failed' in outcome) throw new NotHealthyError(process.name, outcome.failed, process.tail());
  return outcome.value;
}

/** Waits until `url` answers 200, while the process runs (see waitWhileRunning). */
export async function waitUntilHealthy(
  process: ManagedProcess,
  url: string,
  options: ClientTls & { timeoutMs?: number } = {},
): Promise<void> {
  const { timeoutMs = 60_000, ...tls } = options;
  await waitWhileRunning(
    process,
    async () => {
      const result = await healthy(url, tls);
      return result === true ? { done: true, value: undefined } : { done: false, saw: result };
    },
    { description: `${process.name} to answer ${url}`, timeoutMs, intervalMs: 100 },
  );
}
