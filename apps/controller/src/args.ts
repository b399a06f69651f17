// kfx-controller's command line, kubectl-style where kubectl has the same flag.
import { parseProcessFlags, UsageError } from '@kfx/kube-runtime/serving';

export const USAGE = `Usage: kfx-controller [--config FILE] [options]

Reconciles the per-tenant policy objects of every Kubeflow Profile: quotas, limit ranges,
role bindings, network policies, the proxy ConfigMap, namespaces and templated objects.
Without --config it runs the quotas and limitrange reconcilers with their defaults.

Options:
  --config FILE          YAML configuration (which reconcilers run, and their settings)
  --kubeconfig FILE      kubeconfig to use (default: KUBECONFIG, ~/.kube/config, in-cluster)
  --context NAME         kubeconfig context to use
  --metrics-port PORT    port of /healthz, /readyz and /metrics (default 8080)
  --namespace NAME       the controller's own namespace: it holds the leader-election Lease
                         and no Profile may use it (default: POD_NAMESPACE, else the
                         kubeconfig context's namespace)
  --no-leader-elect      run without leader election (one replica only!)
  --version              print the version
  -h, --help             show this help
`;

export interface Args {
  config?: string | undefined;
  kubeconfig?: string | undefined;
  context?: string | undefined;
  metricsPort: number;
  namespace?: string | undefined;
  leaderElect: boolean;
  help: boolean;
  version: boolean;
}

/** A refusal of the command line, followed by the usage (exit 2). */
const usageError = (message: string) => new UsageError(`${message}\n\n${USAGE}`);

export function parseCommandLine(argv: readonly string[]): Args {
  const values = parseProcessFlags(argv, USAGE, {
    'metrics-port': { type: 'string' },
    namespace: { type: 'string' },
    'leader-elect': { type: 'boolean', default: true },
  });
  const portText = values['metrics-port'] ?? '8080';
  const metricsPort = Number(portText);
  if (!/^\d+$/.test(portText) || metricsPort > 65535) {
    throw usageError(`--metrics-port: expected a port number 0-65535, got "${portText}"`);
  }
  for (const flag of ['config', 'kubeconfig', 'context', 'namespace'] as const) {
    if (values[flag] === '') throw usageError(`--${flag} needs a value`);
  }
  return {
    config: values.config,
    kubeconfig: values.kubeconfig,
    context: values.context,
    metricsPort,
    namespace: values.namespace,
    leaderElect: values['leader-elect'],
    help: values.help,
    version: values.version,
  };
}
