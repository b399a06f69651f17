// The kfx-controller binary as clusters run it: the bundle (apps/controller/dist/main.js) with the
// node flags of the image's ENTRYPOINT, started without leader election so that every write
// counted is a reconcile's. Extra node flags come from BENCH_NODE_FLAGS (e.g. `--cpu-prof`).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@kfx/testenv';

const binary = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const running = new Set<ChildProcess>();

/** The node flags of `ENTRYPOINT ["node", <flags>…, "/app/main.js"]` in the Dockerfile. */
function imageNodeFlags(): string[] {
  const dockerfile = readFileSync(new URL('../Dockerfile', import.meta.url), 'utf8');
  const entrypoint = /^ENTRYPOINT\s+(\[.*\])\s*$/m.exec(dockerfile)?.[1];
  if (!entrypoint) throw new Error('apps/controller/Dockerfile has no ENTRYPOINT [...] line');
  const words = JSON.parse(entrypoint) as string[];
  return words.slice(1, -1);
}

export interface Controller {
  pid: number;
  metrics: () => Promise<string>;
  stop: () => void;
}

/** Writes the controller's config file (YAML text) and returns its path. */
export function controllerConfig(yaml: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'kfx-bench-')), 'controller.yaml');
  writeFileSync(path, yaml);
  return path;
}

/** Resolves once the controller's caches have synced (/readyz answers 200). */
export async function startController(kubeconfig: string, config: string): Promise<Controller> {
  const port = await freePort();
  const flags = [
    ...imageNodeFlags(),
    ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean),
  ];
  const args = ['--config', config, '--kubeconfig', kubeconfig, '--metrics-port', String(port)];
  const child = spawn(process.execPath, [...flags, binary, ...args, '--no-leader-elect'], {
    stdio: ['ignore', 'inherit', 'inherit'],
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
}
