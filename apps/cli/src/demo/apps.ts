// The demo runs the real kfx-webhook and kfx-controller binaries (the apps' builds) as child
// processes against the embedded control plane, with their logs in the control plane's folder.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { openSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Testenv } from './testenv.js';

export interface RunningApp {
  name: string;
  logFile: string;
  stop(): Promise<void>;
}

/** The built entry point of an app package (`@kfx/webhook-app` → …/apps/webhook/dist/main.js). */
function entryPoint(pkg: string): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve(`${pkg}/package.json`)), 'dist', 'main.js');
}

export function startApp(
  name: string,
  pkg: string,
  args: readonly string[],
  dir: string,
): RunningApp {
  const logFile = join(dir, `${name}.log`);
  const fd = openSync(logFile, 'a');
  const child: ChildProcess = spawn(process.execPath, [entryPoint(pkg), ...args], {
    stdio: ['ignore', fd, fd],
  });
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  return {
    name,
    logFile,
    async stop() {
      process.removeListener('exit', kill);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(kill, 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function status(url: string, ca?: string): Promise<number> {
  const send = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    // agent: false — a local probe never goes through a proxy the environment may name.
    const req = send(url, { ...(ca ? { ca } : {}), agent: false, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}

/** Waits until `url` answers 200 (HTTPS verified against `ca`, or plain HTTP). */
export async function waitReady(
  testenv: Testenv,
  app: RunningApp,
  url: string,
  ca?: string,
): Promise<void> {
  await testenv.waitFor(
    async () => {
      const code = await status(url, ca);
      return code === 200 ? { done: true, value: undefined } : { done: false, saw: `HTTP ${code}` };
    },
    {
      description: `${app.name} to be ready (its log: ${app.logFile})`,
      timeoutMs: 60_000,
      intervalMs: 200,
    },
  );
}
