// The test cluster's kubectl (built by @kfx/testenv), for what a reader of the guides would type
// and for listing every kind the API serves. @kfx/testenv runs kubectl internally but does not
// export that helper, hence this small one.
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
    child.stdin?.end(input ?? '');
  });
}

/** kubectl that must succeed: its stdout, or an error with its stderr. */
export async function kubectlOk(
  kubeconfigPath: string,
  args: readonly string[],
  input?: string,
): Promise<string> {
  const result = await kubectl(kubeconfigPath, args, input);
  if (result.code !== 0) {
    throw new Error(`kubectl ${args.join(' ')} exited ${result.code}: ${result.stderr.trim()}`);
  }
  return result.stdout;
}
