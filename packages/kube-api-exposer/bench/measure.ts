// Measurements for the benchmark: request latency (one at a time, so that it is latency and not
// queueing), throughput with a fixed number of callers, and percentiles.
import https from 'node:https';

export interface Target {
  name: string;
  url: string;
  ca: string;
  agent: https.Agent;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** One GET, read to the end; resolves with the milliseconds it took. */
export function timedGet(target: Target, path: string, token: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = https.request(`${target.url}${path}`, {
      agent: target.agent,
      ca: target.ca,
      headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
    });
    request.on('response', (response) => {
      if (response.statusCode !== 200) {
        reject(new Error(`${target.name} ${path}: HTTP ${response.statusCode ?? 0}`));
        response.resume();
        return;
      }
      response.on('data', () => undefined);
      response.on('end', () => {
        resolve(performance.now() - started);
      });
    });
    request.on('error', reject);
    request.end();
  });
}

/** `callers` loops issuing requests back to back for `seconds`; returns requests per second. */
export async function throughput(
  target: Target,
  path: string,
  token: string,
  callers: number,
  seconds: number,
): Promise<number> {
  const until = performance.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (performance.now() < until) {
        await timedGet(target, path, token);
        done++;
      }
    }),
  );
  return done / seconds;
}
