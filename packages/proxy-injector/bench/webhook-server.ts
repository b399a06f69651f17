// Benchmark process: an admission server with, as WEBHOOK says, the proxy injector or a no-op
// mutating webhook on the same path, logging at info to /dev/null as in production. Prints its
// port as JSON for admission-core's bench launcher.
import { createAdmissionServer, defineMutatingWebhook } from '@kfx/admission-core';
import { createProxyInjector, parseProxyInjectorConfig } from '@kfx/proxy-injector';
import { pino } from 'pino';

const logger = pino({ level: 'info' }, pino.destination({ dest: '/dev/null', sync: true }));
const path = '/mutate/proxy-injector';
const webhook =
  process.env.WEBHOOK === 'noop'
    ? defineMutatingWebhook({
        name: 'noop',
        path,
        failureMode: 'admit',
        mutate: () => ({ allowed: true }),
      })
    : createProxyInjector(
        parseProxyInjectorConfig({
          httpProxy: 'http://proxy.corp.example:3128',
          httpsProxy: 'http://proxy.corp.example:3128',
          noProxy: ['.corp.example', 'registry.internal', '10.0.0.0/8'],
          nodeUseEnvProxy: process.env.EXTRAS === '1',
          javaToolOptions: process.env.EXTRAS === '1',
        }),
        { logger, environment: {} },
      );

const server = createAdmissionServer({
  webhooks: [webhook],
  tls: { certFile: process.env.CERT_FILE ?? '', keyFile: process.env.KEY_FILE ?? '' },
  host: '127.0.0.1',
  port: 0,
  metricsPort: 0,
  metricsHost: '127.0.0.1',
  logger,
});
const { port } = await server.start();
process.stdout.write(`${JSON.stringify({ port })}\n`);
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
