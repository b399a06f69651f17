// The node's cgroups: one folder of its own in every mounted cgroup hierarchy, holding the
// kubelet's pods (`<root>/kubepods`, the kubelet's cgroupRoot) and the node's daemons
// (`<root>/daemons`: the namespace holder, containerd and its shims, the kubelet). Everything the
// node ever ran is therefore in that folder, which is how stop() and the reaper find every
// process to kill before the folders are removed. Works with cgroup v1 (and hybrid) and v2.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hierarchies } from './teardown.js';

const DAEMONS = 'daemons';

/** Creates `<name>` and `<name>/daemons` in every hierarchy. */
export function createCgroup(name: string): void {
  for (const h of hierarchies()) {
    const root = join(h.mountPoint, name);
    mkdirSync(join(root, DAEMONS), { recursive: true });
    if (h.version === 1 && h.controllers.includes('cpuset')) {
      // A new cpuset is empty, and a task cannot join an empty one: inherit the parent's.
      for (const dir of [root, join(root, DAEMONS)]) {
        for (const file of ['cpuset.cpus', 'cpuset.mems']) {
          const parent = readFileSync(join(dir, '..', file), 'utf8').trim();
          writeFileSync(join(dir, file), parent);
        }
      }
    }
    if (h.version === 2 && !hierarchies().some((o) => o.version === 1)) {
      // Pure v2: the controllers the kubelet uses must be handed down to its subtree.
      const available = readFileSync(join(root, 'cgroup.controllers'), 'utf8').trim().split(/\s+/);
      const wanted = ['cpu', 'cpuset', 'memory', 'pids', 'io'].filter((c) => available.includes(c));
      writeFileSync(join(root, 'cgroup.subtree_control'), wanted.map((c) => `+${c}`).join(' '));
    }
  }
}

/** A shell line that moves the shell itself into `<name>/daemons` in every hierarchy. */
export function joinDaemonsScript(name: string): string {
  return hierarchies()
    .map((h) => `echo $$ > '${join(h.mountPoint, name, DAEMONS, 'cgroup.procs')}'`)
    .join('; ');
}
