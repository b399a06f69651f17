// Which ResourceQuota resource names and values the apiserver accepts, checked before applying:
// one bad override must not get the whole ResourceQuota rejected, so it is caught and reported
// here and the others go through. The rules are the apiserver's quota validation.
import { parseQuantity } from '@kfx/kube-runtime/controller';

/** Counted in whole objects: a fraction is invalid. */
const INTEGER = new Set([
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'services.nodeports',
  'services.loadbalancers',
]);

/** The standard names a ResourceQuota accepts: compute, storage and the object counts. */
const STANDARD = new Set([
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.storage',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  ...INTEGER,
]);

const HUGEPAGES = /^(requests\.)?hugepages-.+$/;

/** Why `resource` cannot be a ResourceQuota key, or undefined when it can. */
export function quotaResourceProblem(resource: string): string | undefined {
  // Names with a slash are extended or per-class resources (requests.nvidia.com/gpu,
  // count/jobs.batch, gold.storageclass.storage.k8s.io/requests.storage): any qualified name.
  if (resource.includes('/')) return undefined;
  if (STANDARD.has(resource) || HUGEPAGES.test(resource)) return undefined;
  return `"${resource}" is not a resource a ResourceQuota can limit (e.g. requests.cpu, limits.memory, pods, requests.storage)`;
}

/** Why `value` cannot be the hard limit of `resource`, or undefined when it can. */
export function quotaValueProblem(resource: string, value: string): string | undefined {
  const quantity = parseQuantity(value);
  if (!quantity) return `"${value}" is not a Kubernetes quantity (e.g. 4, 500m, 16Gi)`;
  if (quantity.numerator < 0n) return `"${value}" is negative`;
  const counted = INTEGER.has(resource) || resource.startsWith('count/');
  if (counted && quantity.numerator % quantity.denominator !== 0n) {
    return `"${value}" is not a whole number, and ${resource} counts objects`;
  }
  return undefined;
}
