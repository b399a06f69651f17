// Benchmark process: an admission server with, as WEBHOOK says, the proxy injector or a no-op
// mutating webhook on the same path, logging at info to /dev/null as in production. Prints its
// port as JSON for admission-core's bench launcher. INJECTOR_MODULE loads another build of the
// injector (an earlier dist/index.js), to compare two versions side by side.
import type * as Injector from '@kfx/proxy-injector';
import { benchLogger, noopWebhook, serveForBench } from '../../admission-core/bench/serve.ts';

const { createProxyInjector, parseProxyInjectorConfig } = (await import(
  process.env.INJECTOR_MODULE ?? '@kfx/proxy-injector'
)) as typeof Injector;

const path = '/mutate/proxy-injector';
await serveForBench([
  process.env.WEBHOOK === 'noop'
    ? noopWebhook(path)
    : createProxyInjector(
        parseProxyInjectorConfig({
          httpProxy: 'http://proxy.corp.example:3128',
          httpsProxy: 'http://proxy.corp.example:3128',
          noProxy: ['.corp.example', 'registry.internal', '10.0.0.0/8'],
          nodeUseEnvProxy: process.env.EXTRAS === '1',
          javaToolOptions: process.env.EXTRAS === '1',
        }),
        { logger: benchLogger, environment: {} },
      ),
]);
