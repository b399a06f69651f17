// A cross-process lock from an atomic mkdir, with the holder's pid inside so that a lock left by
// a killed process is taken over instead of waited on forever.
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

function holderAlive(dir: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(dir, 'pid'), 'utf8'));
  } catch {
    // The holder may be between mkdir and writing its pid: trust a fresh lock.
    try {
      return Date.now() - statSync(dir).mtimeMs < 10_000;
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but is not ours.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function withDirectoryLock<T>(
  dir: string,
  progress: (line: string) => void,
  fn: () => Promise<T>,
): Promise<T> {
  let announced = false;
  for (;;) {
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (!holderAlive(dir)) {
        rmSync(dir, { recursive: true, force: true });
        continue;
      }
      if (!announced) {
        progress(`Waiting for another process that holds ${dir}`);
        announced = true;
      }
      await sleep(1000);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
