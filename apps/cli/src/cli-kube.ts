// The logger and the Kubernetes client of the commands that talk to a cluster, from the global
// options (cli-options.ts). The client is kube-runtime's, which never sends API traffic through
// HTTP(S)_PROXY.
import { KubeClient, loadKubeConfig } from '@kfx/kube-runtime/client';
import { messageOf } from '@kfx/kube-runtime/serving';
import { pino, type Logger } from 'pino';
import { CliError } from './cli-exit.js';
import { LOG_LEVELS, type GlobalOptions } from './cli-options.js';

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
    throw new CliError(messageOf(error));
  }
  return KubeClient.fromKubeConfig(kubeConfig, { userAgent: 'kfx-cli', logger });
}
