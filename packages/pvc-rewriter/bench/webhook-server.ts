// Benchmark process: an admission server with, as WEBHOOK says, the PVC rewriter or a no-op
// mutating webhook on the same path, logging at info to /dev/null as in production. No API access:
// the StorageClass and Namespace caches are map lookups and do not change the cost measurably.
import { createPvcRewriter, parsePvcRewriterConfig } from '@kfx/pvc-rewriter';
import { benchLogger, noopWebhook, serveForBench } from '../../admission-core/bench/serve.ts';

const path = '/mutate/pvc-rewriter';
await serveForBench([
  process.env.WEBHOOK === 'noop'
    ? noopWebhook(path)
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
        { logger: benchLogger },
      ),
]);
