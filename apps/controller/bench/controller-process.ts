// The kfx-controller binary as clusters run it: the bundle (apps/controller/dist/main.js) with the
// NODE_OPTIONS its chart derives from its memory limit, started without leader election so that
// every write counted is a reconcile's. Extra node flags come from BENCH_NODE_FLAGS (e.g.
// `--cpu-prof`).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@kfx/testenv';
import { chartMemory } from '../src/testing/helm.ts';

const binary = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const running = new Set<ChildProcess>();

export interface Controller {
  pid: number;
  metrics: () => Promise<string>;
  stop: () => void;
}

const configDirs: string[] = [];

/** Writes the controller's config file (YAML text) and returns its path (stopAll removes it). */
export function controllerConfig(yaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'kfx-bench-'));
  configDirs.push(dir);
  const path = join(dir, 'controller.yaml');
  writeFileSync(path, yaml);
  return path;
}

/** Resolves once the controller's caches have synced (/readyz answers 200). */
export async function startController(kubeconfig: string, config: string): Promise<Controller> {
  const port = await freePort();
  const { nodeOptions } = await chartMemory();
  const flags = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const args = ['--config', config, '--kubeconfig', kubeconfig, '--metrics-port', String(port)];
  const child = spawn(process.execPath, [...flags, binary, ...args, '--no-leader-elect'], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, NODE_OPTIONS: nodeOptions },
  });
  for (;;) {
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
    if (ready?.status === 200) break;
    if (child.exitCode !== null) throw new Error(`kfx-controller exited with ${child.exitCode}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  running.add(child);
  return {
    pid: child.pid ?? 0,
    metrics: async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text(),
    stop: () => {
      child.kill('SIGTERM');
      running.delete(child);
    },
  };
}

export function stopAll(): void {
  for (const child of running) child.kill('SIGTERM');
  running.clear();
  for (const dir of configDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
