// kubectl's connection flags, shared by every command that talks to a cluster: `--kubeconfig`,
// `--context` and `-n/--namespace` on the root command, readable from any subcommand. Only
// commander here: `kfx --help` must not load the Kubernetes client (cli-kube.ts makes it).
import type { Command } from 'commander';

export interface GlobalOptions {
  kubeconfig?: string | undefined;
  context?: string | undefined;
  namespace?: string | undefined;
  logLevel: string;
}

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'];

/** Every `-n` the command line gave, in order (commander keeps the last one only). */
const namespacesGiven = new WeakMap<Command, string[]>();

export function addGlobalOptions(program: Command): Command {
  const given: string[] = [];
  namespacesGiven.set(program, given);
  program.on('option:namespace', (value: string) => given.push(value));
  return program
    .option(
      '--kubeconfig <file>',
      'kubeconfig file (default: KUBECONFIG, ~/.kube/config, in-cluster)',
    )
    .option('--context <name>', 'kubeconfig context (default: the current context)')
    .option(
      '-n, --namespace <name>',
      'namespace, for commands that work in one (kfx doctor: repeat it)',
    )
    .option('--log-level <level>', `diagnostics on stderr: ${LOG_LEVELS.join(', ')}`, 'warn');
}

export function globalOptions(command: Command): GlobalOptions {
  return command.optsWithGlobals<GlobalOptions>();
}

/** Every namespace `-n` named, for commands that work in several (`kfx doctor -n a -n b`). */
export function allNamespaces(command: Command): string[] {
  let root = command;
  while (root.parent) root = root.parent;
  return [...(namespacesGiven.get(root) ?? [])];
}
