// `profile-quota`: the ResourceQuota `kf-resource-quota` from the Profile's own
// `spec.resourceQuotaSpec`, as the upstream Kubeflow profile controller makes it, deleted when
// the spec is removed (or its `hard` emptied). A spec that is wrong anywhere (a value that is no
// quantity, a resource a quota cannot limit, a misspelt field) is not applied in part: the quota
// already in place is kept, and the Profile's condition names the field. The spec is written by
// whoever writes the Profile, so a value above `ceilings.quotas` of its resource is cut to the
// ceiling (quota-ceilings.ts).
import { resources } from '@kfx/kube-runtime/client';
import type { V1ResourceQuota } from '@kubernetes/client-node';
import { z } from 'zod';
import { profileNamespace } from '../profile.js';
import { applyQuotaCeilings } from '../quota-ceilings.js';
import { quotaResourceProblem, quotaValueProblem } from '../quota-resources.js';
import { defineReconciler, type Desired, type Problem } from '../reconciler.js';
import { objectName } from '../schemas.js';

const profileQuotaConfigSchema = z
  .strictObject({
    /** Name of the ResourceQuota; the upstream controller's by default. */
    name: objectName.default('kf-resource-quota'),
  })
  .prefault({});

export type ProfileQuotaConfig = z.infer<typeof profileQuotaConfigSchema>;

const FIELD = 'spec.resourceQuotaSpec';
const isMapping = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The ResourceQuotaSpec to apply, or the problems that keep it from being applied. */
function quotaSpec(spec: Record<string, unknown>): {
  spec?: V1ResourceQuota['spec'];
  problems: Problem[];
} {
  const problems: Problem[] = [];
  const fail = (message: string) => problems.push({ message: `${FIELD}${message}` });
  const { hard, scopes, scopeSelector, ...rest } = spec;
  for (const key of Object.keys(rest)) {
    fail(`.${key}: not a field of a ResourceQuotaSpec (hard, scopes, scopeSelector)`);
  }
  const limits: Record<string, string> = {};
  if (hard !== undefined && hard !== null && !isMapping(hard)) {
    fail('.hard: expected a mapping of resource to quantity');
  }
  for (const [resource, value] of Object.entries(isMapping(hard) ? hard : {})) {
    const text = typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
    const problem =
      quotaResourceProblem(resource) ??
      (text === undefined
        ? `expected a quantity, not ${JSON.stringify(value)}`
        : quotaValueProblem(resource, text));
    if (problem) fail(`.hard["${resource}"]: ${problem}`);
    else limits[resource] = text ?? '';
  }
  if (
    scopes !== undefined &&
    !(Array.isArray(scopes) && scopes.every((s) => typeof s === 'string'))
  ) {
    fail('.scopes: expected a list of scope names (e.g. NotTerminating)');
  }
  if (scopeSelector !== undefined && !isMapping(scopeSelector)) {
    fail('.scopeSelector: expected a mapping (matchExpressions)');
  }
  if (problems.length > 0 || Object.keys(limits).length === 0) return { problems };
  return {
    spec: {
      hard: limits,
      ...(scopes === undefined ? {} : { scopes: scopes as string[] }),
      ...(scopeSelector === undefined ? {} : { scopeSelector: scopeSelector as object }),
    },
    problems,
  };
}

export const profileQuotaReconciler = defineReconciler<ProfileQuotaConfig>({
  name: 'profile-quota',
  configSchema: profileQuotaConfigSchema,
  kinds: () => [{ apiVersion: 'v1', kind: resources.resourceQuotas.kind }],
  desired(profile, { config, ceilings }): Desired {
    const raw = profile.spec?.resourceQuotaSpec;
    // No spec (or an empty `hard`): no quota, and one made before is deleted.
    if (raw === undefined || raw === null) return { objects: [], problems: [] };
    if (!isMapping(raw)) {
      return {
        objects: [],
        problems: [{ message: `${FIELD}: expected a ResourceQuotaSpec (a mapping with hard)` }],
        incomplete: true,
      };
    }
    const { spec, problems } = quotaSpec(raw);
    if (problems.length > 0) {
      return {
        objects: [],
        problems: [
          ...problems,
          { message: `ResourceQuota ${config.name} is left as it was until ${FIELD} is fixed` },
        ],
        incomplete: true,
      };
    }
    if (!spec) return { objects: [], problems: [] };
    const allowed = applyQuotaCeilings(
      Object.entries(spec.hard ?? {}).map(([resource, value]) => ({
        resource,
        value,
        field: `${FIELD}.hard["${resource}"]: ${value}`,
      })),
      {},
      ceilings,
    );
    const quota: V1ResourceQuota = {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: config.name, namespace: profileNamespace(profile) },
      spec: {
        hard: allowed.hard,
        ...(spec.scopes ? { scopes: spec.scopes } : {}),
        ...(spec.scopeSelector ? { scopeSelector: spec.scopeSelector } : {}),
      },
    };
    return { objects: [quota], problems: allowed.problems };
  },
});
