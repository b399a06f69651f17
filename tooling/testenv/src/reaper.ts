// Detached watchdog: `node reaper.js <parentPid> <dir>`. When the parent process is gone it
// kills every pid listed in <dir>/pids, tears down the nodes recorded in <dir> (the real node's
// node.json, each remote node's remote-node-<name>.json: processes, cgroups, links) and removes
// the folder, so a test runner killed with SIGKILL leaves nothing behind. It exits on its own
// once the folder is removed.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [parentArg, dir] = process.argv.slice(2);
const parent = Number(parentArg);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** node/teardown: built next to this file, or its source when the tests run from source. */
interface TeardownModule {
  teardownNode: (traces: unknown) => string[];
  nodeTraceFiles: (files: readonly string[]) => string[];
}

async function teardownModule(): Promise<TeardownModule> {
  const built = new URL('./node/teardown.js', import.meta.url);
  const url = existsSync(fileURLToPath(built)) ? built.href : built.href.replace(/\.js$/, '.ts');
  return (await import(url)) as TeardownModule;
}

async function reap(folder: string): Promise<void> {
  for (const line of readFileSync(join(folder, 'pids'), 'utf8').split('\n')) {
    const pid = Number(line);
    if (pid > 0 && alive(pid)) process.kill(pid, 'SIGKILL');
  }
  const { teardownNode, nodeTraceFiles } = await teardownModule();
  for (const file of nodeTraceFiles(readdirSync(folder))) {
    teardownNode(JSON.parse(readFileSync(join(folder, file), 'utf8')));
  }
  if (process.env.KFX_TESTENV_KEEP !== '1') rmSync(folder, { recursive: true, force: true });
}

const timer = setInterval(() => {
  if (!dir || !existsSync(join(dir, 'pids'))) {
    clearInterval(timer);
    return;
  }
  if (alive(parent)) return;
  clearInterval(timer);
  void reap(dir);
}, 1000);
