// The client for subcommands that ask the cluster something (mint a token, read the CA Secret)
// with the caller's usual credentials. Its logs go to stderr: stdout carries the result.
import { KubeClient, loadKubeConfig } from '@kfx/kube-runtime';
import { pino } from 'pino';

export interface AdminClientOptions {
  kubeconfig?: string | undefined;
  context?: string | undefined;
}

export function adminClient(options: AdminClientOptions): KubeClient {
  const kc = loadKubeConfig({ kubeconfig: options.kubeconfig, context: options.context });
  return KubeClient.fromKubeConfig(kc, {
    userAgent: 'kfx-expose-api',
    logger: pino({ name: 'kfx-expose-api', level: 'warn' }, pino.destination(2)),
  });
}
