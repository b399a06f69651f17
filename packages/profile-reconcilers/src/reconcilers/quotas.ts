// `quotas`: one ResourceQuota per Profile namespace from configured defaults, overridden per
// Profile by labels `<prefix>/<resource>` (see quota-labels.ts): lowered freely, raised only up
// to `ceilings.quotas` (quota-ceilings.ts). The defaults are those of the Statistics Canada site
// controller, so that a drop-in migration changes nothing by itself.
import { resources } from '@kfx/kube-runtime/client';
import type { V1ResourceQuota } from '@kubernetes/client-node';
import { z } from 'zod';
import { profileNamespace } from '../profile.js';
import { applyQuotaCeilings } from '../quota-ceilings.js';
import { quotaOverridesFromLabels, RESOURCE_ALIASES } from '../quota-labels.js';
import { quotaResourceProblem, quotaValueProblem } from '../quota-resources.js';
import { defineReconciler } from '../reconciler.js';
import { labelPrefix, objectName, quantity, quantityMap } from '../schemas.js';

const DEFAULT_QUOTA_HARD: Readonly<Record<string, string>> = {
  'requests.cpu': '70',
  'limits.cpu': '70',
  'requests.memory': '368G',
  'limits.memory': '368G',
  'requests.storage': '100T',
  'requests.nvidia.com/gpu': '2',
  pods: '100',
  'services.nodeports': '0',
  'services.loadbalancers': '0',
};

const quotasConfigSchema = z
  .strictObject({
    /** Name of the ResourceQuota. */
    name: objectName.default('quotas'),
    /** Labels `<labelPrefix>/<resource>` override the defaults per Profile. */
    labelPrefix: labelPrefix.default('quotas.kfx.dev'),
    /** `spec.hard` before overrides. */
    defaults: quantityMap
      .superRefine((hard, context) => {
        for (const [resource, value] of Object.entries(hard)) {
          // A value that is no non-negative quantity is already reported by `quantityMap`.
          const problem =
            quotaResourceProblem(resource) ??
            (quantity.safeParse(value).success ? quotaValueProblem(resource, value) : undefined);
          if (problem) context.addIssue({ code: 'custom', message: problem, path: [resource] });
        }
      })
      .default({ ...DEFAULT_QUOTA_HARD }),
    /** Label short names for resources whose names hold a `/`. */
    aliases: z.record(z.string(), z.string()).default({ ...RESOURCE_ALIASES }),
  })
  .prefault({});

export type QuotasConfig = z.infer<typeof quotasConfigSchema>;

export const quotasReconciler = defineReconciler<QuotasConfig>({
  name: 'quotas',
  configSchema: quotasConfigSchema,
  kinds: () => [{ apiVersion: 'v1', kind: resources.resourceQuotas.kind }],
  desired(profile, { config, ceilings }) {
    const overrides = quotaOverridesFromLabels(profile.metadata?.labels, config.labelPrefix, {
      aliases: config.aliases,
    });
    const allowed = applyQuotaCeilings(
      overrides.requests.map(({ label, value, resource }) => ({
        resource,
        value,
        field: `label ${label}="${value}"`,
        label: { label, value },
      })),
      config.defaults,
      ceilings,
    );
    const quota: V1ResourceQuota = {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: config.name, namespace: profileNamespace(profile) },
      spec: { hard: { ...config.defaults, ...allowed.hard } },
    };
    return {
      objects: [quota],
      problems: [
        ...overrides.problems.map(({ label, value, reason }) => ({
          label,
          value,
          message: `label ${label}="${value}" ignored: ${reason}`,
        })),
        ...allowed.problems,
      ],
    };
  },
});
