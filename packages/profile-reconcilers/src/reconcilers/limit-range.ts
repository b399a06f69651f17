// `limitrange`: a LimitRange giving containers a default limit and request, so that Pods without
// requests can still run in a namespace whose ResourceQuota limits cpu and memory. Overridable
// per Profile by labels `<prefix>/<section>.<resource>` (see limit-labels.ts).
import { resources } from '@kfx/kube-runtime/client';
import { z } from 'zod';
import {
  LIMIT_ALIASES,
  limitOverridesFromLabels,
  LIMIT_SECTIONS,
  type LimitOverride,
} from '../limit-labels.js';
import { limitItemProblem, type LimitItem } from '../limit-range-rules.js';
import { profileNamespace } from '../profile.js';
import type { Problem } from '../reconciler.js';
import { defineReconciler } from '../reconciler.js';
import { labelPrefix, objectName, quantityMap } from '../schemas.js';

const DEFAULT_LIMITS = { cpu: '250m', memory: '256M' };

const limitRangeConfigSchema = z
  .strictObject({
    name: objectName.default('default-container-limits'),
    labelPrefix: labelPrefix.default('limitrange.kfx.dev'),
    /** Limit of a container that sets none. */
    default: quantityMap.default({ ...DEFAULT_LIMITS }),
    /** Request of a container that sets none. */
    defaultRequest: quantityMap.default({ ...DEFAULT_LIMITS }),
    max: quantityMap.optional(),
    min: quantityMap.optional(),
    aliases: z.record(z.string(), z.string()).default({ ...LIMIT_ALIASES }),
  })
  .superRefine((config, context) => {
    const item = itemOf(config);
    for (const resource of resourcesOf(item)) {
      const problem = limitItemProblem(item, resource);
      if (problem) context.addIssue({ code: 'custom', message: problem, path: [] });
    }
  })
  .prefault({});

export type LimitRangeConfig = z.infer<typeof limitRangeConfigSchema>;

/**
 * A LimitRange as JSON has it. client-node's model calls the `default` field `_default`, which
 * is not what the API reads, so this one is spelled out.
 */
export interface LimitRangeJson {
  apiVersion: 'v1';
  kind: 'LimitRange';
  metadata: { name: string; namespace: string };
  spec: { limits: (LimitItem & { type: string })[] };
}

function itemOf(config: LimitRangeConfig): LimitItem {
  const item: LimitItem = {};
  for (const section of LIMIT_SECTIONS) {
    const values = config[section];
    if (values && Object.keys(values).length > 0) item[section] = { ...values };
  }
  return item;
}

function withOverrides(item: LimitItem, overrides: readonly LimitOverride[]): LimitItem {
  const next: LimitItem = { ...item };
  for (const { section, resource, value } of overrides) {
    next[section] = { ...next[section], [resource]: value };
  }
  return next;
}

/**
 * The most label overrides of one resource that agree with each other and the config: labels
 * that together contradict (default below defaultRequest, …) are dropped, fewest first.
 */
function largestConsistentSubset(
  item: LimitItem,
  resource: string,
  overrides: readonly LimitOverride[],
): LimitOverride[] {
  const subsets = Array.from({ length: 2 ** overrides.length }, (_, mask) =>
    overrides.filter((_o, i) => (mask & (1 << i)) !== 0),
  ).sort((a, b) => b.length - a.length);
  return subsets.find((subset) => !limitItemProblem(withOverrides(item, subset), resource)) ?? [];
}

const resourcesOf = (item: LimitItem) =>
  new Set(LIMIT_SECTIONS.flatMap((section) => Object.keys(item[section] ?? {})));

export const limitRangeReconciler = defineReconciler<LimitRangeConfig>({
  name: 'limitrange',
  configSchema: limitRangeConfigSchema,
  kinds: () => [{ apiVersion: 'v1', kind: resources.limitRanges.kind }],
  desired(profile, { config }) {
    const item = itemOf(config);
    const parsed = limitOverridesFromLabels(
      profile.metadata?.labels,
      config.labelPrefix,
      config.aliases,
    );
    const problems: Problem[] = parsed.problems.map(({ label, value, reason }) => ({
      label,
      value,
      message: `label ${label}="${value}" ignored: ${reason}`,
    }));
    const byResource = new Map<string, LimitOverride[]>();
    for (const override of parsed.overrides) {
      byResource.set(override.resource, [...(byResource.get(override.resource) ?? []), override]);
    }
    for (const [resource, overrides] of byResource) {
      const kept = largestConsistentSubset(item, resource, overrides);
      const problem = limitItemProblem(withOverrides(item, overrides), resource);
      for (const override of overrides) {
        if (kept.includes(override)) continue;
        const { label, value } = override;
        problems.push({
          label,
          value,
          message: `label ${label}="${value}" ignored: ${problem ?? ''}`,
        });
      }
      Object.assign(item, withOverrides(item, kept));
    }
    const limitRange: LimitRangeJson = {
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: config.name, namespace: profileNamespace(profile) },
      spec: { limits: [{ type: 'Container', ...item }] },
    };
    return { objects: [limitRange], problems };
  },
});
