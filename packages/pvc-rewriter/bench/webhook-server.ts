// Benchmark process: an admission server with, as WEBHOOK says, the PVC rewriter or a no-op
// mutating webhook on the same path, logging at info to /dev/null as in production. No API access:
// the StorageClass and Namespace caches are map lookups and do not change the cost measurably.
import { createAdmissionServer, defineMutatingWebhook } from '@kfx/admission-core';
import { createPvcRewriter, parsePvcRewriterConfig } from '@kfx/pvc-rewriter';
import { benchLogger, benchServerOptions, noopMutation, serveForBench } from '@kfx/testenv/bench';

const path = '/mutate/pvc-rewriter';
const webhook =
  process.env.WEBHOOK === 'noop'
    ? defineMutatingWebhook(noopMutation(path))
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
        { logger: benchLogger() },
      );
await serveForBench(createAdmissionServer({ ...benchServerOptions(), webhooks: [webhook] }));
