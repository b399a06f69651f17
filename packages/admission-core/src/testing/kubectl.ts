// Runs the real kubectl against the test control plane, so the tests see exactly what a person
// at a terminal would: exit code, stdout and the error text on stderr.
import { spawn } from 'node:child_process';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export type Kubectl = (args: readonly string[], stdin?: string) => Promise<KubectlResult>;

export function kubectlFor(binary: string, kubeconfigPath: string): Kubectl {
  return (args, stdin) =>
    new Promise((resolve, reject) => {
      const child = spawn(binary, ['--kubeconfig', kubeconfigPath, ...args], { stdio: 'pipe' });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => {
        resolve({ code: code ?? -1, stdout, stderr });
      });
      child.stdin.end(stdin ?? '');
    });
}
