// Part of check `profiles`: a ResourceQuota and the LimitRange's defaults side by side. A
// container that sets no limits (or requests) gets the LimitRange's default; when that default
// is more than the quota's hard total, or a quota limits cpu or memory and no LimitRange gives
// a default, every Pod that sets none is refused at creation.
import { parseQuantity, type Quantity } from '@kfx/kube-runtime/controller';
import { objectName, type Finding } from '../finding.js';
import type { Cluster } from '../cluster.js';
import type { LimitRange, ResourceQuota } from '../objects.js';

/** Quota keys a container's default fills, with the LimitRange section and resource they read. */
const QUOTA_DEFAULTS: readonly {
  key: string;
  section: 'default' | 'defaultRequest';
  resource: string;
}[] = [
  { key: 'limits.cpu', section: 'default', resource: 'cpu' },
  { key: 'limits.memory', section: 'default', resource: 'memory' },
  { key: 'requests.cpu', section: 'defaultRequest', resource: 'cpu' },
  { key: 'cpu', section: 'defaultRequest', resource: 'cpu' },
  { key: 'requests.memory', section: 'defaultRequest', resource: 'memory' },
  { key: 'memory', section: 'defaultRequest', resource: 'memory' },
];

const greater = (a: Quantity, b: Quantity) =>
  a.numerator * b.denominator > b.numerator * a.denominator;

/** A container's default for `section`: a defaultRequest falls back to the default limit. */
function containerDefault(
  ranges: readonly LimitRange[],
  section: 'default' | 'defaultRequest',
  resource: string,
): { value: string; range: string } | undefined {
  for (const range of ranges) {
    for (const item of range.spec?.limits ?? []) {
      if (item.type !== 'Container') continue;
      const value =
        item[section]?.[resource] ??
        (section === 'defaultRequest' ? item.default?.[resource] : undefined);
      if (value !== undefined) return { value, range: range.metadata?.name ?? '' };
    }
  }
  return undefined;
}

/** Findings for one namespace's quotas and limit ranges (pure: the unit tests call it). */
export function quotaFindings(
  namespace: string,
  quotas: readonly ResourceQuota[],
  ranges: readonly LimitRange[],
): Finding[] {
  const findings: Finding[] = [];
  for (const quota of quotas) {
    const name = quota.metadata?.name ?? '';
    const object = objectName('ResourceQuota', name, namespace);
    for (const { key, section, resource } of QUOTA_DEFAULTS) {
      const hard = quota.spec?.hard?.[key];
      if (hard === undefined) continue;
      const given = containerDefault(ranges, section, resource);
      const sectionLabel = section === 'default' ? 'default' : 'defaultRequest';
      if (!given) {
        findings.push({
          check: 'profiles',
          code: 'profiles.quota-without-default',
          severity: 'warning',
          object,
          message: `limits ${key} but no LimitRange gives containers a ${sectionLabel} ${resource}: a Pod that sets none is refused`,
          fix: `enable kfx-controller's limitrange reconciler (config.reconcilers.limitrange), or kubectl -n ${namespace} create a LimitRange with ${sectionLabel}.${resource}`,
        });
        continue;
      }
      const limit = parseQuantity(hard);
      const each = parseQuantity(given.value);
      if (!limit || !each || !greater(each, limit)) continue;
      findings.push({
        check: 'profiles',
        code: 'profiles.limitrange-above-quota',
        severity: 'error',
        object,
        message: `allows ${key} ${hard} in all, less than the ${given.value} LimitRange ${given.range} gives each container by default: a Pod that sets no ${resource} is refused`,
        fix: `raise ${key} to at least ${given.value} (Profile label quotas.kfx.dev/${key}) or lower ${sectionLabel}.${resource} below ${hard} (Profile label limitrange.kfx.dev/${sectionLabel}.${resource})`,
      });
    }
  }
  return findings;
}

export async function profileQuotaFindings(
  cluster: Cluster,
  profileNamespaces: readonly string[],
): Promise<Finding[]> {
  const [quotas, ranges] = await Promise.all([
    cluster.byNamespace(cluster.resourceQuotas()),
    cluster.byNamespace(cluster.limitRanges()),
  ]);
  return profileNamespaces.flatMap((namespace) =>
    quotaFindings(namespace, quotas.get(namespace) ?? [], ranges.get(namespace) ?? []),
  );
}
