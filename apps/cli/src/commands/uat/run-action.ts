// What `kfx uat run` does once its flags are parsed, loaded only when it runs (the command's
// definition, run.ts, stays light for --help): the run handed to @kfx/uat-runner with a
// renderer for the chosen output and Ctrl-C/SIGTERM wired to clean-up. Whatever stays behind
// (clean-up cut short by a second signal, or objects that would not go) is named on stderr with
// the `kfx uat clean` command that removes it.
import type { Command } from 'commander';
import { RUN_DEFAULTS, runUat } from '@kfx/uat-runner';
import { cliLogger, kubeClient } from '../../cli-kube.js';
import { globalOptions, type GlobalOptions } from '../../cli-options.js';
import { createRenderer, stdoutOutput } from '../../render/render.js';
import { abortOnSignals } from '../../cli-signals.js';
import { runInputFrom, type RunFlags, type RunInput } from './run-input.js';

export async function run(this: Command): Promise<void> {
  const flags = this.opts<RunFlags>();
  const globals = globalOptions(this);
  const input = runInputFrom(flags, globals, process.env);
  const logger = cliLogger(globals);
  const client = kubeClient(globals, logger);
  const renderer = createRenderer(flags.output, stdoutOutput(), process.env);
  const clean = cleanCommand(input, globals);
  let outstanding: string[] = [];
  const signals = abortOnSignals((text) => process.stderr.write(text), {
    leftBehind: () =>
      outstanding.length === 0
        ? undefined
        : `kfx: left behind: ${outstanding.join(', ')}\nkfx: to remove it: ${clean}\n`,
  });
  try {
    const result = await runUat({
      ...input,
      client,
      logger,
      signal: signals.signal,
      onOutstanding: (objects) => {
        outstanding = objects;
      },
      reporter: (event) => {
        renderer.event(event);
      },
    });
    // 130 after Ctrl-C, 143 after SIGTERM (summary.json says 130 for any interruption).
    if (result.outcome === 'interrupted') result.exitCode = signals.exitCode();
    renderer.result(result);
    if (result.upload?.error !== undefined) {
      process.stderr.write(
        `kfx: artifacts upload failed: ${result.upload.error} (exit ${result.exitCode})\n`,
      );
    }
    if (result.cleanup.leftovers.length > 0) {
      process.stderr.write(`kfx: to remove what is left once it can go: ${clean}\n`);
    }
    process.exitCode = result.exitCode;
  } finally {
    renderer.close();
    signals.dispose();
    client.close();
  }
}

/** The `kfx uat clean` command line that removes this run's objects. */
function cleanCommand(input: RunInput, globals: GlobalOptions): string {
  const words = ['kfx', 'uat', 'clean'];
  if (globals.kubeconfig !== undefined) words.push('--kubeconfig', globals.kubeconfig);
  if (globals.context !== undefined) words.push('--context', globals.context);
  if (input.namespace !== undefined) words.push('-n', input.namespace);
  else words.push('--profile', input.profile ?? RUN_DEFAULTS.profile);
  if (input.runnerRole !== undefined && input.runnerRole !== RUN_DEFAULTS.runnerRole) {
    words.push('--runner-role', input.runnerRole);
  }
  words.push('--run-id', input.runId);
  return words.map(shellWord).join(' ');
}

const shellWord = (word: string): string =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
