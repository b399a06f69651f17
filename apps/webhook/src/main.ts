// kfx-webhook: the admission webhook clusters run (proxy-injector + pvc-rewriter). Reads its
// configuration, serves until SIGTERM, then drains and exits. Exit codes (the same for every kfx
// app, see kube-runtime's exit-codes): 2 for a bad command line or configuration (nothing was
// started), 1 when it cannot start or fails at run time, 0 after a graceful stop.
import { closeOnSignals, createAdmissionServer } from '@kfx/admission-core';
import { KubeClient, loadKubeConfig, messageOf } from '@kfx/kube-runtime';
import { EXIT, exitCodeOf } from '@kfx/kube-runtime/serving';
import { parseArgs } from 'node:util';
import { pino, type Logger } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { loadConfig } from './config.js';
import { VERSION } from './version.js';
import { createWebhooks, HANDLERS } from './webhooks.js';

const usage = `Usage: kfx-webhook --config FILE

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

Exit codes: 0 stopped gracefully; 1 cannot start or failed while serving; 2 bad command line
or configuration (unreadable or invalid file), nothing started.

Example:
  kfx-webhook --config /etc/kfx-webhook/config.yaml
`;

/** API access when some can be found; the handlers degrade without it (they say how). */
function kubeClient(
  options: { kubeconfig?: string | undefined; context?: string | undefined },
  logger: Logger,
  registry: Registry,
): KubeClient | undefined {
  try {
    const kc = loadKubeConfig(options);
    return KubeClient.fromKubeConfig(kc, { registry, logger, userAgent: 'kfx-webhook' });
  } catch (error) {
    if (options.kubeconfig !== undefined || options.context !== undefined) throw error;
    logger.warn({ err: error }, 'no API access: webhooks run without their watched caches');
    return undefined;
  }
}

/** Resolves with an exit code when there is nothing to serve, or once serving has begun. */
async function main(args: string[]): Promise<number | undefined> {
  let values: {
    config?: string | undefined;
    kubeconfig?: string | undefined;
    context?: string | undefined;
    help?: boolean | undefined;
    version?: boolean | undefined;
  };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        config: { type: 'string' },
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`kfx-webhook: ${messageOf(error)}\n\n${usage}`);
    return EXIT.badConfig;
  }
  if (values.help) {
    process.stdout.write(usage);
    return EXIT.ok;
  }
  if (values.version) {
    process.stdout.write(`kfx-webhook ${VERSION}\n`);
    return EXIT.ok;
  }
  if (!values.config) {
    process.stderr.write(`kfx-webhook: --config FILE is required\n\n${usage}`);
    return EXIT.badConfig;
  }
  // An unreadable or invalid file throws a ConfigError naming it and every bad key: exit 2.
  const config = loadConfig(values.config, HANDLERS);
  // Written asynchronously, so that no admission waits on stdout: the lines of a busy moment go
  // out in one write instead of one write each. Up to 4 MiB of lines wait for a slow stdout (more
  // are dropped rather than held); what waits is written out on exit.
  const destination = pino.destination({ dest: 1, sync: false, maxLength: 4 * 1024 * 1024 });
  const logger = pino({ name: 'kfx-webhook', level: config.logLevel }, destination);
  const registry = new Registry();
  // Node's process metrics too: process_resident_memory_bytes against the container's limit.
  collectDefaultMetrics({ register: registry });
  // A kubeconfig that cannot be used is a start-up failure (1), as for kfx-controller.
  const client = kubeClient(values, logger, registry);
  const webhooks = createWebhooks(config.sections, HANDLERS, { logger, client, registry });
  let server;
  try {
    server = createAdmissionServer({
      webhooks,
      registry,
      tls: config.tls,
      port: config.port,
      metricsPort: config.metricsPort,
      shutdownTimeoutMs: config.shutdownTimeoutMs,
      ...config.limits,
      logger,
    });
  } catch (error) {
    // The limits are checked against each other here (e.g. maxInFlightBytes ≥ maxBodyBytes).
    const message = messageOf(error).replace(/^createAdmissionServer: /, '');
    process.stderr.write(`kfx-webhook: invalid configuration ${values.config}: limits: ${message}
`);
    client?.close();
    return EXIT.badConfig;
  }
  try {
    await server.start();
  } catch (error) {
    logger.fatal({ err: error }, 'cannot start');
    process.stderr.write(`kfx-webhook: cannot start: ${messageOf(error)}\n`);
    client?.close();
    return EXIT.failure;
  }
  let logEnded = false;
  closeOnSignals(
    {
      close: async () => {
        await server.close();
        client?.close();
      },
    },
    {
      logger,
      // The last lines (the drain, "admission server closed") may still be in flight, and an
      // exit during an asynchronous write loses it: end the log stream and exit once it has
      // written everything, or after 2 s if stdout takes nothing.
      exit: (code) => {
        if (logEnded) process.exit(code);
        logEnded = true;
        setTimeout(() => process.exit(code), 2000).unref();
        destination.once('close', () => process.exit(code));
        destination.end();
      },
    },
  );
  return undefined;
}

// Not awaited at the top level: once serving, the module is done and signals drive the rest.
main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`kfx-webhook: ${messageOf(error)}\n`);
    process.exitCode = exitCodeOf(error);
  },
);
