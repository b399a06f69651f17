// Detached watchdog: `node reaper.js <parentPid> <dir>`. When the parent process is gone it
// kills every pid listed in <dir>/pids, so a test runner killed with SIGKILL leaves no
// kube-apiserver or etcd behind. It exits on its own once the folder is removed.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

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

const timer = setInterval(() => {
  if (!dir || !existsSync(join(dir, 'pids'))) {
    clearInterval(timer);
    return;
  }
  if (alive(parent)) return;
  for (const line of readFileSync(join(dir, 'pids'), 'utf8').split('\n')) {
    const pid = Number(line);
    if (pid > 0 && alive(pid)) process.kill(pid, 'SIGKILL');
  }
  clearInterval(timer);
}, 1000);
