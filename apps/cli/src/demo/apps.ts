// The demo runs the real kfx-webhook and kfx-controller binaries (the apps' builds) as child
// processes against the embedded control plane, with their logs in the control plane's folder.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, openSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Testenv } from './testenv.js';

export interface RunningApp {
  name: string;
  logFile: string;
  stop(): Promise<void>;
}

/**
 * The built entry point of an app beside this one in the repository (`webhook` →
 * apps/webhook/dist/main.js): the demo runs from a checkout, where `npm start` builds all three.
 */
function entryPoint(app: string): string {
  const main = fileURLToPath(new URL(`../../${app}/dist/main.js`, import.meta.url));
  if (!existsSync(main)) {
    throw new Error(
      `${main} is missing: kfx demo runs from the kfx repository after \`npm start\` (or turbo run build)`,
    );
  }
  return main;
}

export function startApp(
  name: string,
  app: string,
  args: readonly string[],
  dir: string,
): RunningApp {
  const logFile = join(dir, `${name}.log`);
  const fd = openSync(logFile, 'a');
  const child: ChildProcess = spawn(process.execPath, [entryPoint(app), ...args], {
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
