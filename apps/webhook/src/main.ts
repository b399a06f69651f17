// kfx-webhook: the admission webhook clusters run (proxy-injector + pvc-rewriter). Reads its
// configuration, serves until SIGTERM, then drains and exits.
import { closeOnSignals, createAdmissionServer } from '@kfx/admission-core';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { loadConfig } from './config.js';
import { createWebhooks, HANDLERS } from './webhooks.js';

const usage = `Usage: kfx-webhook --config FILE

Serves the kfx mutating admission webhooks over HTTPS (HTTP/2 and HTTP/1.1):
  POST /mutate/proxy-injector   inject HTTP(S)_PROXY/NO_PROXY into Pods
  POST /mutate/pvc-rewriter     rewrite the StorageClass of ReadWriteMany claims
  GET  /healthz, /readyz        health and readiness
and Prometheus metrics at GET /metrics on a separate plain-HTTP port.

Options:
  --config FILE   YAML configuration (port, metricsPort, tls, logLevel, shutdownTimeoutMs,
                  proxyInjector, pvcRewriter)
  -h, --help      show this help
`;

/** Resolves with an exit code when there is nothing to serve, or once serving has begun. */
async function main(args: string[]): Promise<number | undefined> {
  let values: { config?: string | undefined; help?: boolean | undefined };
  try {
    ({ values } = parseArgs({
      args,
      options: { config: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`kfx-webhook: ${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(usage);
    return 0;
  }
  if (!values.config) {
    process.stderr.write(`kfx-webhook: --config FILE is required\n\n${usage}`);
    return 2;
  }
  let config;
  try {
    config = await loadConfig(values.config, HANDLERS);
  } catch (error) {
    process.stderr.write(`kfx-webhook: invalid configuration ${(error as Error).message}\n`);
    return 1;
  }
  const logger = pino({ name: 'kfx-webhook', level: config.logLevel });
  const server = createAdmissionServer({
    webhooks: createWebhooks(config.sections, HANDLERS, { logger }),
    tls: config.tls,
    port: config.port,
    metricsPort: config.metricsPort,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
    logger,
  });
  try {
    await server.start();
  } catch (error) {
    logger.fatal({ err: error }, 'cannot start');
    process.stderr.write(`kfx-webhook: cannot start: ${(error as Error).message}\n`);
    return 1;
  }
  closeOnSignals(server, { logger });
  return undefined;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`kfx-webhook: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
