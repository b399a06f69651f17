// Benchmark process: the admission server with the proxy handler, logging at info to /dev/null
// (the cost of a log line per request is real in production). Prints its port as JSON.
import { createAdmissionServer } from '@kfx/admission-core';
import { pino } from 'pino';
import { proxyWebhook } from './proxy-webhook.ts';

const server = createAdmissionServer({
  webhooks: [proxyWebhook],
  tls: { certFile: process.env.CERT_FILE ?? '', keyFile: process.env.KEY_FILE ?? '' },
  host: '127.0.0.1',
  port: 0,
  metricsPort: 0,
  metricsHost: '127.0.0.1',
  logger: pino({ level: 'info' }, pino.destination({ dest: '/dev/null', sync: true })),
});
const { port } = await server.start();
process.stdout.write(`${JSON.stringify({ port })}\n`);
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
