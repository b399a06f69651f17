// Starts a benchmark server in its own process (as in production: the load generator must not
// share an event loop with it), reads the port it prints, and reads its CPU time and memory from
// /proc.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Running {
  port: number;
  /** The JSON line the server announced its port with (kfx-webhook's names its metricsPort too). */
  announced: Record<string, unknown>;
  pid: number | undefined;
  /** CPU time (user + system) the process has used, in ms; NaN where /proc is missing. */
  cpuMs(): number;
  /** Resident memory now (VmRSS) and its peak so far (VmHWM), in MiB; NaN once gone. */
  rssMiB(): { now: number; peak: number };
  stop(): Promise<void>;
}

function cpuMsOf(pid: number | undefined): number {
  try {
    // Fields after the command name: state is index 0, utime 11, stime 12 (clock ticks of 10 ms).
    const fields =
      readFileSync(`/proc/${String(pid)}/stat`, 'utf8')
        .split(') ')[1]
        ?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

function rssOf(pid: number | undefined): { now: number; peak: number } {
  try {
    const text = readFileSync(`/proc/${String(pid)}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(text)?.[1]) / 1024;
    return { now: field('VmRSS'), peak: field('VmHWM') };
  } catch {
    return { now: Number.NaN, peak: Number.NaN };
  }
}

/** A line of output that is JSON with a numeric `port` (a log line may be one). */
function announcement(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const parsed = JSON.parse(line) as Record<string, unknown>;
    return typeof parsed.port === 'number' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export interface ProcessOptions {
  env?: Record<string, string | undefined>;
  /** Environment variables to remove (e.g. KUBECONFIG). */
  unset?: string[];
  /** Where the server's standard error goes. Default: this process's. */
  stderr?: 'inherit' | 'ignore';
}

/**
 * Starts `command` and resolves once it prints a JSON line with its port. Whatever it prints
 * after that (log lines) is read and dropped, so that a full pipe never stalls it.
 */
export function startProcess(
  command: string,
  args: string[],
  options: ProcessOptions = {},
): Promise<Running> {
  const env: Record<string, string | undefined> = { ...process.env, ...options.env };
  for (const name of options.unset ?? []) env[name] = undefined;
  const child = spawn(command, args, {
    env,
    stdio: ['ignore', 'pipe', options.stderr ?? 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const onExit = (code: number | null) => {
      reject(new Error(`${command} ${args.join(' ')} exited with ${String(code)}: ${output}`));
    };
    child.once('exit', onExit);
    child.once('error', reject);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const announced = output
        .split('\n')
        .map(announcement)
        .find((found) => found !== undefined);
      if (announced === undefined) return;
      child.stdout.off('data', onData);
      child.stdout.resume();
      child.off('exit', onExit);
      resolve({
        port: announced.port as number,
        announced,
        pid: child.pid,
        cpuMs: () => cpuMsOf(child.pid),
        rssMiB: () => rssOf(child.pid),
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null || child.signalCode !== null) {
              done();
              return;
            }
            child.once('exit', () => {
              done();
            });
            child.kill('SIGTERM');
          }),
      });
    };
    child.stdout.on('data', onData);
  });
}

/**
 * A benchmark server written in TypeScript (a module that prints its port as JSON, e.g. through
 * serveForBench), run by this Node.js with `env` added and `nodeArgs` before it (e.g. heap
 * flags): `file` is its URL, usually `new URL('webhook-server.ts', import.meta.url)`.
 */
export function startServer(
  file: URL | string,
  env: Record<string, string>,
  nodeArgs: readonly string[] = [],
): Promise<Running> {
  return startProcess(process.execPath, [...nodeArgs, fileURLToPath(file)], { env });
}

/**
 * The transport floor (floor-server.ts): Node's TLS + HTTP/2 server answering a fixed review, what
 * any webhook on Node pays before doing any work. `env` gives CERT_FILE and KEY_FILE.
 */
export function startFloorServer(
  env: Record<string, string>,
  nodeArgs: readonly string[] = [],
): Promise<Running> {
  return startKitServer('floor-server', env, nodeArgs);
}

/**
 * The least correct webhook (echo-server.ts): the floor plus parsing the review, echoing its uid and
 * answering the fixed patch in PATCH (base64). `env` gives CERT_FILE, KEY_FILE and PATCH.
 */
export function startEchoServer(
  env: Record<string, string>,
  nodeArgs: readonly string[] = [],
): Promise<Running> {
  return startKitServer('echo-server', env, nodeArgs);
}

/** One of this kit's servers: built next to this file as NAME.js, or its source from source. */
function startKitServer(
  name: string,
  env: Record<string, string>,
  nodeArgs: readonly string[],
): Promise<Running> {
  const built = new URL(`${name}.js`, import.meta.url);
  const file = existsSync(built) ? built : new URL(`${name}.ts`, import.meta.url);
  return startServer(file, env, nodeArgs);
}
