// Runs the built kfx-controller binary as a child process, as a cluster would, keeping its
// output for the test's failure messages. (Build first: `pnpm run build`.)
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resources, type KubeClient, getOrUndefined } from '@kfx/kube-runtime/client';
import { type Lease } from '@kfx/kube-runtime/controller';
import { waitFor } from '@kfx/testenv';

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

export interface ControllerProcess {
  child: ChildProcess;
  /** stdout and stderr so far. */
  output(): string;
  /** The exit code (or signal name) once it exited. */
  exited: Promise<number | string>;
}

export function spawnController(
  args: string[],
  env: Record<string, string> = {},
): ControllerProcess {
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | string>((resolve) => {
    child.on('exit', (code, signal) => {
      resolve(code ?? signal ?? 'unknown');
    });
  });
  return { child, output: () => output, exited };
}

const configDirs: string[] = [];

/** Writes a configuration file in a folder of its own; removeConfigs() removes them all. */
export function writeConfig(yaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'kfx-controller-'));
  configDirs.push(dir);
  const path = join(dir, 'controller.yaml');
  writeFileSync(path, yaml);
  return path;
}

/** Removes every folder writeConfig made (call it in afterAll). */
export function removeConfigs(): void {
  for (const dir of configDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export async function leaseHolder(
  client: KubeClient,
  namespace: string,
  name = 'kfx-controller',
): Promise<string | undefined> {
  const lease = await getOrUndefined<Lease>(client, resources.leases, name, { namespace });
  return lease?.spec?.holderIdentity;
}

export async function waitForHolder(
  client: KubeClient,
  namespace: string,
  accept: (holder: string | undefined) => boolean,
  description: string,
  timeoutMs = 30_000,
): Promise<string | undefined> {
  return waitFor(
    async () => {
      const holder = await leaseHolder(client, namespace);
      return accept(holder)
        ? { done: true, value: holder }
        : { done: false, saw: `holder ${holder ?? '(none)'}` };
    },
    { description, timeoutMs },
  );
}
