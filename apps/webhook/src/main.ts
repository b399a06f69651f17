// kfx-webhook: the admission webhook clusters run (proxy-injector + pvc-rewriter). The command
// line (args.ts) and the file (config.ts) are checked first; the admission server then runs on
// kube-runtime's Runtime, which serves /metrics and /readyz on metricsPort, drains on SIGTERM
// (within shutdownTimeoutMs) and exits. Exit codes (the same for every kfx process): 2 for a bad
// command line or configuration (nothing started), 1 when it cannot start, fails at run time or
// a second signal forced it, 0 after a graceful stop. With tls.selfManaged the certificate is
// kept by self-managed/ through the API instead of read from files.
import { createAdmissionServer } from '@kfx/admission-core';
import { KubeClient, loadKubeConfig } from '@kfx/kube-runtime/client';
import { EXIT, messageOf, runEntry, Runtime } from '@kfx/kube-runtime/serving';
import { pino } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { parseCommandLine, USAGE } from './args.js';
import { loadConfig } from './config.js';
import { selfManagedServing, type SelfManagedServing } from './self-managed/serving.js';
import type { TlsFilesConfig } from './tls-config.js';
import { VERSION } from './version.js';
import { createWebhooks, HANDLERS } from './webhooks.js';

await runEntry('kfx-webhook', async () => {
  const args = parseCommandLine(process.argv.slice(2));
  if (args.help || args.version) {
    process.stdout.write(args.help ? USAGE : `kfx-webhook ${VERSION}\n`);
    return EXIT.ok;
  }
  // An unreadable or invalid file throws a ConfigError naming it and every bad key: exit 2.
  const config = loadConfig(args.config, HANDLERS);
  // Written asynchronously, so that no admission waits on stdout (up to 4 MiB of lines wait for
  // a slow stdout; more are dropped rather than held); what waits is written out on exit.
  const destination = pino.destination({ dest: 1, sync: false, maxLength: 4 * 1024 * 1024 });
  const logger = pino({ name: 'kfx-webhook', level: config.logLevel }, destination);
  const registry = new Registry();
  // Node's process metrics too: process_resident_memory_bytes against the container's limit.
  collectDefaultMetrics({ register: registry });
  let client: KubeClient | undefined;
  try {
    client = KubeClient.fromKubeConfig(loadKubeConfig(args), {
      registry,
      logger,
      userAgent: 'kfx-webhook',
    });
  } catch (error) {
    // Without API access the handlers run without their caches (they say how); a kubeconfig
    // named but unusable is a start-up failure (1), as for kfx-controller.
    if (args.kubeconfig !== undefined || args.context !== undefined) throw error;
    logger.warn({ err: error }, 'no API access: webhooks run without their watched caches');
  }
  const webhooks = createWebhooks(config.sections, HANDLERS, { logger, client, registry });
  // tls.selfManaged: the certificate comes from the keeper (self-managed/), else from the files.
  let selfManaged: SelfManagedServing | undefined;
  let tls: TlsFilesConfig | { cert: string; key: string };
  if ('selfManaged' in config.tls) {
    selfManaged = selfManagedServing(config.tls.selfManaged, { client, logger, registry });
    tls = selfManaged.tls;
  } else {
    tls = config.tls;
  }
  let server;
  try {
    server = createAdmissionServer({
      webhooks,
      registry,
      tls,
      ...(selfManaged ? { ready: selfManaged.ready } : {}),
      port: config.port,
      metricsPort: false,
      shutdownTimeoutMs: config.shutdownTimeoutMs,
      ...config.limits,
      logger,
    });
  } catch (error) {
    // The limits are checked against each other here (e.g. maxInFlightBytes ≥ maxBodyBytes).
    const message = messageOf(error).replace(/^createAdmissionServer: /, '');
    process.stderr.write(`kfx-webhook: invalid configuration ${args.config}: limits: ${message}\n`);
    client?.close();
    return EXIT.badConfig;
  }
  const admission = server;
  const runtime = new Runtime({
    name: 'kfx-webhook',
    logger,
    registry,
    ops: { port: config.metricsPort, setting: 'metricsPort' },
  });
  runtime.add({
    name: 'api-client',
    stop: () => {
      client?.close();
    },
  });
  if (selfManaged) {
    runtime.add(
      selfManaged.component((pair) => {
        admission.setTls(pair);
      }),
    );
  }
  runtime.add({
    name: 'admission',
    start: () => admission.start({ metricsPort: runtime.opsPort }),
    stop: () => admission.close(),
    ready: () => admission.readiness(),
  });
  return runtime.run();
});
