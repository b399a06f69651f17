// Starts a benchmark server in its own process (as in production: the load generator must not
// share an event loop with it), reads the port it prints, and reads its CPU time from /proc.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Running {
  port: number;
  /** CPU time (user + system) the process has used, in ms; NaN where /proc is missing. */
  cpuMs(): number;
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

export function startServer(file: string, env: Record<string, string>): Promise<Running> {
  const child = spawn(process.execPath, [fileURLToPath(new URL(file, import.meta.url))], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      reject(new Error(`${file} exited with ${String(code)} before listening`));
    });
    child.stdout.once('data', (chunk: Buffer) => {
      const { port } = JSON.parse(chunk.toString()) as { port: number };
      resolve({
        port,
        cpuMs: () => cpuMsOf(child.pid),
        stop: () =>
          new Promise((done) => {
            child.removeAllListeners('exit');
            child.once('exit', () => {
              done();
            });
            child.kill('SIGTERM');
          }),
      });
    });
  });
}
