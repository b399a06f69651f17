// The handler the benchmarks serve: the work a proxy injector does (both spellings of the proxy
// variables appended to every container that does not set them), about 18 patch operations.
import type { V1Pod } from '@kubernetes/client-node';
import { defineMutatingWebhook, type Plain } from '@kfx/admission-core';

const PROXY = {
  HTTP_PROXY: 'http://proxy.corp.example:3128',
  HTTPS_PROXY: 'http://proxy.corp.example:3128',
  NO_PROXY: 'localhost,127.0.0.1,.svc,.svc.cluster.local,.cluster.local,10.0.0.0/8',
};
const VARIABLES = Object.entries(PROXY).flatMap(([name, value]) => [
  { name, value },
  { name: name.toLowerCase(), value },
]);

export const proxyWebhook = defineMutatingWebhook<Plain<V1Pod>>({
  name: 'proxy',
  path: '/mutate/proxy',
  failureMode: 'admit',
  mutate(request) {
    for (const container of request.object.spec?.containers ?? []) {
      const env = (container.env ??= []);
      const taken = new Set(env.map((variable) => variable.name));
      for (const variable of VARIABLES) if (!taken.has(variable.name)) env.push({ ...variable });
    }
    return { allowed: true };
  },
});
