// The independent load generator of the comparison benchmarks: h2load (nghttp2), a C program that
// drives HTTP/2 and HTTP/1.1 over TLS without sharing a runtime with any server it measures.
// Installed from Debian's nghttp2-client when missing and this runs as root with apt.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Protocol } from './load.js';

function installed(): boolean {
  try {
    execFileSync('h2load', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Makes sure h2load can be run; throws with what to do when it cannot be installed here. */
export function ensureH2load(log: (line: string) => void): void {
  if (installed()) return;
  const root = process.getuid?.() === 0;
  let apt = false;
  try {
    execFileSync('apt-get', ['--version'], { stdio: 'ignore' });
    apt = true;
  } catch {
    // not Debian or Ubuntu
  }
  if (!root || !apt) {
    throw new Error(
      'h2load (nghttp2) is not installed. Install it (Debian/Ubuntu: sudo apt-get install ' +
        'nghttp2-client; Fedora: dnf install nghttp2; macOS: brew install nghttp2) and run again.',
    );
  }
  log('h2load is missing: apt-get install nghttp2-client');
  const install = () =>
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'nghttp2-client'], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  try {
    install();
  } catch {
    // The package lists may be missing or old: fetch them once and try again.
    execFileSync('apt-get', ['update'], { stdio: ['ignore', 'ignore', 'inherit'] });
    install();
  }
  if (!installed()) throw new Error('apt-get installed nghttp2-client, but h2load does not run');
}

export interface H2loadRun {
  url: string;
  /** File with the request body (sent as a POST). */
  bodyFile: string;
  protocol: Protocol;
  clients: number;
  /** Concurrent streams per HTTP/2 connection (HTTP/1.1: one request at a time). */
  streams?: number;
  seconds: number;
  /** Requests per second per client (an open loop); absent: as fast as answered. */
  rpsPerClient?: number;
  /** Keep each request's latency (from h2load's log file). */
  latencies?: boolean;
}

export interface H2loadResult {
  /** Answers with a 2xx status. */
  ok: number;
  /** Everything else: other statuses, failures, errors, timeouts. */
  failed: number;
  seconds: number;
  latenciesMs: number[];
}

function count(text: string, pattern: RegExp): number {
  return Number(pattern.exec(text)?.[1] ?? Number.NaN);
}

export async function h2load(run: H2loadRun): Promise<H2loadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'kfx-h2load-'));
  const logFile = join(dir, 'requests.log');
  const args = [
    ...(run.protocol === 'HTTP/1.1' ? ['--h1'] : ['-m', String(run.streams ?? 1)]),
    '-c',
    String(run.clients),
    '-D',
    String(run.seconds),
    '-d',
    run.bodyFile,
    '-H',
    'content-type: application/json',
    ...(run.rpsPerClient ? ['--rps', String(run.rpsPerClient)] : []),
    ...(run.latencies ? ['--log-file', logFile] : []),
    run.url,
  ];
  try {
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn('h2load', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => {
        if (code === 0) resolve(text);
        else reject(new Error(`h2load ${args.join(' ')} exited with ${String(code)}:\n${text}`));
      });
    });
    // With -D, "total" counts the requests of the measured period only while the status codes
    // count every answer: read both from the status codes, and the requests that got none
    // ("errored", timeouts among them).
    const ok = count(output, /status codes: (\d+) 2xx/);
    const other = [/(\d+) 3xx/, /(\d+) 4xx/, /(\d+) 5xx/, /(\d+) errored/]
      .map((pattern) => count(output, pattern))
      .reduce((sum, n) => sum + n, 0);
    const seconds = Number(/finished in ([\d.]+)s/.exec(output)?.[1] ?? run.seconds);
    // Log lines: start time (µs since the epoch), status, time to the answer (µs).
    const latenciesMs = run.latencies
      ? readFileSync(logFile, 'utf8')
          .split('\n')
          .filter((line) => line.trim() !== '')
          .map((line) => Number(line.split('\t')[2]) / 1000)
      : [];
    return { ok, failed: other, seconds, latenciesMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
