// Child processes of a control plane: output captured to a log file per component, stopped
// with SIGTERM then SIGKILL, and never left behind: an exit hook kills them when this process
// ends, and a detached reaper kills them if this process is killed outright (SIGKILL, OOM).
import { spawn, type ChildProcess } from 'node:child_process';
import {
  appendFileSync,
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const live = new Set<ChildProcess>();
let hooked = false;

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  // No signal handlers here: the host (a CLI cleaning up on Ctrl-C, a test runner) owns them.
  // A process that dies by a signal skips 'exit'; the reaper covers that case.
  process.on('exit', () => {
    for (const child of live) child.kill('SIGKILL');
  });
}

export interface Component {
  name: string;
  child: ChildProcess;
  logFile: string;
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
  stop(graceMs?: number): Promise<void>;
  /** The last lines of its log, for error messages. */
  tail(lines?: number): string;
}

/** Starts the reaper for a control-plane folder: it kills every pid listed in `<dir>/pids`
 * once the process `parentPid` is gone. */
export function startReaper(dir: string): void {
  writeFileSync(join(dir, 'pids'), '');
  // Built: dist/reaper.js. From source (tests): src/reaper.ts, which Node 24 runs as is.
  const built = fileURLToPath(new URL('./reaper.js', import.meta.url));
  const reaper = existsSync(built) ? built : built.replace(/\.js$/, '.ts');
  const child = spawn(process.execPath, [reaper, String(process.pid), dir], {
    detached: true,
    stdio: 'ignore',
  });
  child.unref();
}

export function startComponent(
  dir: string,
  name: string,
  binary: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Component {
  hookExit();
  const logFile = join(dir, `${name}.log`);
  const fd = openSync(logFile, 'a');
  const child = spawn(binary, args, { cwd: dir, env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  live.add(child);
  if (child.pid) appendFileSync(join(dir, 'pids'), `${child.pid}\n`);
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      live.delete(child);
      resolve(code);
    });
    child.once('error', (error) => {
      appendFileSync(logFile, `\n[testenv] could not start ${binary}: ${error.message}\n`);
      live.delete(child);
      resolve(null);
    });
  });
  const tail = (lines = 30) => {
    try {
      return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  };
  const stop = async (graceMs = 5000) => {
    if (child.exitCode !== null || child.signalCode !== null || !live.has(child)) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
  return { name, child, logFile, exited, stop, tail };
}
