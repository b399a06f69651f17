// The handlers the benchmarks compare a webhook with, as definitions for admission-core's
// defineMutatingWebhook (plain objects: testenv does not depend on admission-core, which depends on
// testenv for its tests): a no-op, the framework's own cost; and the reference proxy injection,
// the work a proxy injector does.

/** Admits everything unchanged. */
export function noopMutation(path: string) {
  return {
    name: 'noop',
    path,
    failureMode: 'admit' as const,
    mutate: () => ({ allowed: true as const }),
  };
}

const PROXY = {
  HTTP_PROXY: 'http://proxy.corp.example:3128',
  HTTPS_PROXY: 'http://proxy.corp.example:3128',
  NO_PROXY: 'localhost,127.0.0.1,.svc,.svc.cluster.local,.cluster.local,10.0.0.0/8',
};
const VARIABLES = Object.entries(PROXY).flatMap(([name, value]) => [
  { name, value },
  { name: name.toLowerCase(), value },
]);

/** The part of a Pod the proxy injection reads and writes. */
interface PodEnv {
  spec?: { containers?: { env?: { name: string; value?: string }[] }[] };
}

/**
 * Both spellings of the proxy variables appended to every container that does not set them: on
 * the notebook Pod, about 18 patch operations.
 */
export function proxyMutation(path: string) {
  return {
    name: 'proxy',
    path,
    failureMode: 'admit' as const,
    mutate(request: { object: PodEnv }) {
      for (const container of request.object.spec?.containers ?? []) {
        const env = (container.env ??= []);
        const taken = new Set(env.map((variable) => variable.name));
        for (const variable of VARIABLES) if (!taken.has(variable.name)) env.push({ ...variable });
      }
      return { allowed: true as const };
    },
  };
}
