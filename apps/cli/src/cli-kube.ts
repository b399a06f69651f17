// kubectl's connection flags, shared by every command that talks to a cluster: `--kubeconfig`,
// `--context` and `-n/--namespace` on the root command, readable from any subcommand. The client
// is kube-runtime's, which never sends API traffic through HTTP(S)_PROXY.
import { KubeClient, loadKubeConfig } from '@kfx/kube-runtime';
import type { Command } from 'commander';
import { pino, type Logger } from 'pino';
import { CliError } from './cli-exit.js';

export interface GlobalOptions {
  kubeconfig?: string | undefined;
  context?: string | undefined;
  namespace?: string | undefined;
  logLevel: string;
}

const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'];

export function addGlobalOptions(program: Command): Command {
  return program
    .option(
      '--kubeconfig <file>',
      'kubeconfig file (default: KUBECONFIG, ~/.kube/config, in-cluster)',
    )
    .option('--context <name>', 'kubeconfig context (default: the current context)')
    .option('-n, --namespace <name>', 'namespace, for commands that work in one')
    .option('--log-level <level>', `diagnostics on stderr: ${LOG_LEVELS.join(', ')}`, 'warn');
}

export function globalOptions(command: Command): GlobalOptions {
  return command.optsWithGlobals<GlobalOptions>();
}

/** Structured JSON diagnostics on stderr, so that stdout stays the command's own output. */
export function cliLogger(options: GlobalOptions): Logger {
  if (!LOG_LEVELS.includes(options.logLevel)) {
    throw new CliError(`--log-level: "${options.logLevel}" is not one of ${LOG_LEVELS.join(', ')}`);
  }
  return pino({ name: 'kfx', level: options.logLevel }, pino.destination(2));
}

export function kubeClient(options: GlobalOptions, logger: Logger): KubeClient {
  let kubeConfig;
  try {
    kubeConfig = loadKubeConfig({ kubeconfig: options.kubeconfig, context: options.context });
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  return KubeClient.fromKubeConfig(kubeConfig, { userAgent: 'kfx-cli', logger });
}
