// The real kubectl against a test control plane: admission warnings reach people through
// kubectl's stderr ("Warning: ..."), so that is where the tests look for them.
import { spawn } from 'node:child_process';

export interface KubectlRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function kubectl(binary: string, kubeconfig: string, args: readonly string[], stdin = '') {
  return new Promise<KubectlRun>((resolve, reject) => {
    const child = spawn(binary, ['--kubeconfig', kubeconfig, ...args]);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({
        code: code ?? -1,
        stdout: Buffer.concat(out).toString(),
        stderr: Buffer.concat(err).toString(),
      });
    });
    child.stdin.end(stdin);
  });
}
