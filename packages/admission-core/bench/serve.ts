// The child side of a benchmark server process: serves the given webhooks as in production
// (logging at info, here to /dev/null), prints its port as JSON for the launcher in servers.ts,
// and closes on SIGTERM. Other packages' benchmarks use it for their own handlers.
import { createAdmissionServer, defineMutatingWebhook, type Webhook } from '@kfx/admission-core';
import { pino, type Logger } from 'pino';

export const benchLogger: Logger = pino(
  { level: 'info' },
  pino.destination({ dest: '/dev/null', sync: true }),
);

/** A mutating webhook that admits everything unchanged: the framework's own cost. */
export const noopWebhook = (path: string): Webhook =>
  defineMutatingWebhook({
    name: 'noop',
    path,
    failureMode: 'admit',
    mutate: () => ({ allowed: true }),
  });

export async function serveForBench(webhooks: Webhook[]): Promise<void> {
  const server = createAdmissionServer({
    webhooks,
    tls: { certFile: process.env.CERT_FILE ?? '', keyFile: process.env.KEY_FILE ?? '' },
    host: '127.0.0.1',
    port: 0,
    metricsPort: 0,
    metricsHost: '127.0.0.1',
    logger: benchLogger,
  });
  const { port } = await server.start();
  process.stdout.write(`${JSON.stringify({ port })}\n`);
  process.on('SIGTERM', () => {
    void server.close().then(() => process.exit(0));
  });
}
