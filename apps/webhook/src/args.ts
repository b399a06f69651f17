// kfx-webhook's command line; a refusal is a UsageError (exit 2) followed by the usage.
import { parseProcessFlags, UsageError } from '@kfx/kube-runtime/serving';

export const USAGE = `Usage: kfx-webhook --config FILE

Serves the kfx mutating admission webhooks over HTTPS (HTTP/2 and HTTP/1.1):
  POST /mutate/proxy-injector   inject HTTP(S)_PROXY/NO_PROXY into Pods
  POST /mutate/pvc-rewriter     rewrite the StorageClass of ReadWriteMany claims
  GET  /healthz, /readyz        health and readiness
and Prometheus metrics at GET /metrics on a separate plain-HTTP port.

Options:
  --config FILE       YAML configuration (port, metricsPort, tls, logLevel, shutdownTimeoutMs,
                      limits, proxyInjector, pvcRewriter)
  --kubeconfig FILE   API access for the watched caches (StorageClasses, namespace labels,
                      per-namespace proxy ConfigMaps); default: in-cluster, then KUBECONFIG,
                      then ~/.kube/config. Without any, the handlers run without them.
  --context NAME      kubeconfig context to use
  --version           print the version
  -h, --help          show this help

Exit codes: 0 stopped gracefully; 1 cannot start, failed while serving, or a second signal
forced the exit; 2 bad command line or configuration (unreadable or invalid file), nothing
started.

Example:
  kfx-webhook --config /etc/kfx-webhook/config.yaml
`;

export interface Args {
  /** Required unless help or version is asked for. */
  config: string;
  kubeconfig?: string | undefined;
  context?: string | undefined;
  help: boolean;
  version: boolean;
}

export function parseCommandLine(argv: readonly string[]): Args {
  const { config, kubeconfig, context, help, version } = parseProcessFlags(argv, USAGE, {});
  if (!config && !help && !version) throw new UsageError(`--config FILE is required\n\n${USAGE}`);
  return { config: config ?? '', kubeconfig, context, help, version };
}
