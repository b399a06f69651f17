// Tearing a node down, synchronously and with nothing but Node's standard library: kill every
// process in the node's cgroup folders (which frees its mount and network namespaces, their
// mounts, bridge and iptables rules with them), remove the folders, delete its host link. stop() uses it,
// so does an exit hook, and so does the detached reaper (which runs this file on its own when
// the test process was killed), hence no imports from the rest of the package.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';

export interface Hierarchy {
  mountPoint: string;
  version: 1 | 2;
  controllers: string[];
}

/** Every cgroup hierarchy mounted on this host. */
export function hierarchies(): Hierarchy[] {
  const found: Hierarchy[] = [];
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const [before, after] = line.split(' - ');
    if (!before || !after) continue;
    const [fstype, , superOptions = ''] = after.split(' ');
    const mountPoint = before.split(' ')[4];
    if (!mountPoint) continue;
    if (fstype === 'cgroup2') found.push({ mountPoint, version: 2, controllers: [] });
    if (fstype === 'cgroup') {
      found.push({ mountPoint, version: 1, controllers: superOptions.split(',') });
    }
  }
  return found;
}

function subtree(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const dirs = [dir];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) dirs.push(...subtree(join(dir, entry.name)));
  }
  return dirs;
}

/** Every pid in `<name>`'s subtree, in any hierarchy. */
export function cgroupPids(name: string): number[] {
  const pids = new Set<number>();
  for (const h of hierarchies()) {
    for (const dir of subtree(join(h.mountPoint, name))) {
      try {
        for (const line of readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n')) {
          if (Number(line) > 0) pids.add(Number(line));
        }
      } catch {
        // removed meanwhile
      }
    }
  }
  return [...pids];
}

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Kills every process in `<name>` and removes its folders, deepest first. Synchronous, so that
 * an exit hook and the reaper can use it too. Returns what could not be removed.
 */
export function destroyCgroup(name: string, timeoutMs = 10_000): string[] {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pids = cgroupPids(name);
    if (pids.length === 0 || Date.now() > deadline) break;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    pause(50);
  }
  const left: string[] = [];
  for (const h of hierarchies()) {
    for (const dir of subtree(join(h.mountPoint, name)).reverse()) {
      for (;;) {
        try {
          rmdirSync(dir);
          break;
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === 'ENOENT') break;
          // EBUSY: a task is still leaving (a zombie being reaped); give it a moment.
          if (Date.now() > deadline) {
            left.push(`${dir} (${code ?? 'error'})`);
            break;
          }
          pause(50);
        }
      }
    }
  }
  return left;
}

/** Deletes the node's host link (and its peer); a missing link is fine. */
export function removeNetwork(link: string): void {
  try {
    execFileSync('ip', ['link', 'delete', link], { stdio: 'ignore' });
  } catch {
    // already gone
  }
}

export interface NodeTraces {
  /** The node's cgroup folder name in every hierarchy. */
  cgroup: string;
  /** The host's end of the node's network (a remote node has none: its links die with it). */
  link?: string;
}

/** Everything a node leaves on the host, gone; returns what could not be removed. */
export function teardownNode(traces: NodeTraces): string[] {
  const left = destroyCgroup(traces.cgroup);
  if (traces.link) removeNetwork(traces.link);
  return left;
}

/**
 * The files in a control plane's folder that record a node to tear down: the real node's
 * `node.json` and each remote node's `remote-node-<name>.json`, remote nodes first.
 */
export function nodeTraceFiles(files: readonly string[]): string[] {
  return [
    ...files.filter((f) => /^remote-node-.+\.json$/.test(f)).sort(),
    ...files.filter((f) => f === 'node.json'),
  ];
}
