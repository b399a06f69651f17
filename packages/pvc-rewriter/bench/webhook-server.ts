// Benchmark process: an admission server with, as WEBHOOK says, the PVC rewriter or a no-op
// mutating webhook on the same path, logging at info to /dev/null as in production. No API access:
// the StorageClass and Namespace caches are map lookups and do not change the cost measurably.
import { createAdmissionServer, defineMutatingWebhook } from '@kfx/admission-core';
import { createPvcRewriter, parsePvcRewriterConfig } from '@kfx/pvc-rewriter';
import { pino } from 'pino';

const logger = pino({ level: 'info' }, pino.destination({ dest: '/dev/null', sync: true }));
const path = '/mutate/pvc-rewriter';
const webhook =
  process.env.WEBHOOK === 'noop'
    ? defineMutatingWebhook({
        name: 'noop',
        path,
        failureMode: 'admit',
        mutate: () => ({ allowed: true }),
      })
    : createPvcRewriter(
        parsePvcRewriterConfig({
          rules: [
            {
              accessModes: ['ReadWriteMany'],
              fromStorageClassNames: ['legacy-nfs'],
              storageClassName: 'nfs-v2',
            },
            { accessModes: ['ReadWriteMany'], storageClassName: 'nfs-client' },
          ],
        }),
        { logger },
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
