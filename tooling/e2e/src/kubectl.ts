// kubectl as a reader of the guides runs it, when a test needs the exit code and both outputs
// (a command expected to fail). For a command that must succeed, @kfx/testenv's `kubectl`.
import { execFile } from 'node:child_process';
import { ensureBinaries } from '@kfx/testenv';
import type { Completed } from './apps.js';

export async function kubectl(
  kubeconfigPath: string,
  args: readonly string[],
  input?: string,
): Promise<Completed> {
  const { kubectl: binary } = await ensureBinaries(['kubectl']);
  return new Promise((resolve) => {
    const child = execFile(
      binary,
      [`--kubeconfig=${kubeconfigPath}`, ...args],
      { maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    // kubectl may exit before reading stdin (`kubectl logs`): its exit status tells, not EPIPE.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input ?? '');
  });
}
