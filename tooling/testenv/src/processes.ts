// Child processes started for tests and the demo (the control-plane components, the kfx apps):
// output captured to a log file, stopped with SIGTERM then SIGKILL, and never left behind: an
// exit hook kills them when this process ends, and, for a control plane, a detached reaper kills
// them if this process is killed outright (SIGKILL, OOM).
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

export interface ManagedProcess {
  name: string;
  child: ChildProcess;
  logFile: string;
  /** Resolves with the exit code (null after a signal) once the process has exited. */
  exited: Promise<number | null>;
  /** How it ended, or undefined while it runs. */
  exitStatus(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** SIGTERM, then SIGKILL after `graceMs` (default 5 s); resolves once it is gone. */
  stop(graceMs?: number): Promise<void>;
  /** Its whole log so far. */
  log(): string;
  /** The last lines of its log, for error messages. */
  tail(lines?: number): string;
}

export interface StartProcessOptions {
  /** For messages, e.g. `kube-apiserver` or `kfx-webhook`. */
  name: string;
  command: string;
  args: readonly string[];
  /** Where stdout and stderr go (appended). */
  logFile: string;
  env?: NodeJS.ProcessEnv | undefined;
  cwd?: string;
  /** A control-plane folder whose reaper should kill this process too. */
  reaperDir?: string;
}

export function startProcess(options: StartProcessOptions): ManagedProcess {
  hookExit();
  const { name, command, args, logFile } = options;
  const fd = openSync(logFile, 'a');
  const child = spawn(command, args, {
    env: options.env ?? process.env,
    stdio: ['ignore', fd, fd],
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  closeSync(fd);
  live.add(child);
  if (child.pid && options.reaperDir)
    appendFileSync(join(options.reaperDir, 'pids'), `${child.pid}\n`);
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      live.delete(child);
      resolve(code);
    });
    child.once('error', (error) => {
      appendFileSync(logFile, `\n[testenv] could not start ${command}: ${error.message}\n`);
      live.delete(child);
      resolve(null);
    });
  });
  const log = () => {
    try {
      return readFileSync(logFile, 'utf8');
    } catch {
      return '';
    }
  };
  const ended = () => child.exitCode !== null || child.signalCode !== null || !live.has(child);
  return {
    name,
    child,
    logFile,
    exited,
    exitStatus: () => (ended() ? { code: child.exitCode, signal: child.signalCode } : undefined),
    async stop(graceMs = 5000) {
      if (ended()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
    log,
    tail: (lines = 30) => log().trimEnd().split('\n').slice(-lines).join('\n'),
  };
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
