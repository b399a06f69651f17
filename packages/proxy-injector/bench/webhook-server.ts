// Benchmark process: an admission server with, as WEBHOOK says, the proxy injector, a no-op
// mutating webhook or the reference proxy handler of @kfx/testenv/bench on the same path, logging
// at info to /dev/null as in production. Prints its port as JSON for the launcher of
// @kfx/testenv/bench. INJECTOR_MODULE loads another build of the injector (an earlier
// dist/index.js), to compare two versions side by side.
import type * as Injector from '@kfx/proxy-injector';
import { createAdmissionServer, defineMutatingWebhook } from '@kfx/admission-core';
import {
  benchLogger,
  benchServerOptions,
  noopMutation,
  proxyMutation,
  serveForBench,
} from '@kfx/testenv/bench';

const { createProxyInjector, parseProxyInjectorConfig } = (await import(
  process.env.INJECTOR_MODULE ?? '@kfx/proxy-injector'
)) as typeof Injector;

const path = '/mutate/proxy-injector';
const webhook = () => {
  if (process.env.WEBHOOK === 'noop') return defineMutatingWebhook(noopMutation(path));
  if (process.env.WEBHOOK === 'reference') return defineMutatingWebhook(proxyMutation(path));
  return createProxyInjector(
    parseProxyInjectorConfig({
      httpProxy: 'http://proxy.corp.example:3128',
      httpsProxy: 'http://proxy.corp.example:3128',
      noProxy: ['.corp.example', 'registry.internal', '10.0.0.0/8'],
      nodeUseEnvProxy: process.env.EXTRAS === '1',
      javaToolOptions: process.env.EXTRAS === '1',
    }),
    { logger: benchLogger(), environment: {} },
  );
};
await serveForBench(createAdmissionServer({ ...benchServerOptions(), webhooks: [webhook()] }));
