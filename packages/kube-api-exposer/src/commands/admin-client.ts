// The client for subcommands that ask the cluster something (mint a token, read the CA Secret)
// with the caller's usual credentials. Its logs go to stderr: stdout carries the result.
import { KubeClient, loadKubeConfig } from '@kfx/kube-runtime/client';
import { pino } from 'pino';

export interface AdminClientOptions {
  kubeconfig?: string | undefined;
  context?: string | undefined;
}

function adminClient(options: AdminClientOptions): KubeClient {
  const kc = loadKubeConfig({ kubeconfig: options.kubeconfig, context: options.context });
  return KubeClient.fromKubeConfig(kc, {
    userAgent: 'kfx-expose-api',
    logger: pino({ name: 'kfx-expose-api', level: 'warn' }, pino.destination(2)),
  });
}

/**
 * Runs `use` with `given`, or else with an admin client made on first need (many runs need none:
 * a CA from a file, for instance) and closed when `use` ends.
 */
export async function withAdminClient<T>(
  given: KubeClient | undefined,
  options: AdminClientOptions,
  use: (client: () => KubeClient) => Promise<T>,
): Promise<T> {
  let owned: KubeClient | undefined;
  try {
    return await use(() => given ?? (owned ??= adminClient(options)));
  } finally {
    owned?.close();
  }
}
