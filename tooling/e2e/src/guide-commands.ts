// Runs a command line from a guide as a reader would type it, without a shell: `kfx …` is the
// built CLI, `kubectl …` and `helm …` the test cluster's kubectl and helm, all with KUBECONFIG
// pointing at the test cluster and the guide's working directory. Other programs are refused,
// naming the command.
import { execFile } from 'node:child_process';
import { requireBinaries } from '@kfx/testenv';
import { runApp, type Completed } from './apps.js';

export interface GuideCommandOptions {
  cwd: string;
  kubeconfigPath: string;
  /** More environment (e.g. proxy variables) on top of this process's. */
  env?: NodeJS.ProcessEnv;
}

export async function runGuideCommand(
  words: readonly string[],
  options: GuideCommandOptions,
): Promise<Completed> {
  const [program, ...args] = words;
  const env = { ...process.env, KUBECONFIG: options.kubeconfigPath, ...options.env };
  if (program === 'kfx') return runApp('@kfx/cli', args, { cwd: options.cwd, env });
  if (program === 'kubectl' || program === 'helm') {
    const binary = requireBinaries([program])[program];
    return new Promise((resolve) => {
      execFile(binary, args, { cwd: options.cwd, env }, (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      });
    });
  }
  throw new Error(`a guide's check runs kfx, kubectl and helm only, not: ${words.join(' ')}`);
}

/** Runs every command in order; the first that fails throws with its output. */
export async function runGuideCommands(
  commands: readonly (readonly string[])[],
  options: GuideCommandOptions,
): Promise<Completed[]> {
  const results: Completed[] = [];
  for (const words of commands) {
    const result = await runGuideCommand(words, options);
    if (result.code !== 0) {
      throw new Error(
        `${words.join(' ')} exited ${result.code}:\n${result.stderr}${result.stdout}`,
      );
    }
    results.push(result);
  }
  return results;
}
