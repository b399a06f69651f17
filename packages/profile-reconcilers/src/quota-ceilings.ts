// Quota ceilings: a Profile (by a quota label or its spec.resourceQuotaSpec) may lower a quota
// freely, and raise it above the configured value only up to `ceilings.quotas` of its resource.
// A request beyond that is not applied: the configured value stays (for kf-resource-quota, which
// has none, the ceiling itself), and the problem names the field and the ceiling.
import { compareQuantities, type Ceilings } from './ceilings.js';
import type { Problem } from './reconciler.js';

export interface QuotaRequest {
  resource: string;
  value: string;
  /** Where it was asked for: `label quotas.kfx.dev/gpu="64"`, `spec.resourceQuotaSpec.hard["pods"]`. */
  field: string;
  label?: { label: string; value: string } | undefined;
}

const ceilingKey = (resource: string) => `ceilings.quotas["${resource}"]`;

/**
 * The value to apply for each request (absent: keep the configured one), and the problems of
 * those beyond a ceiling. `configured` holds the values a Profile cannot raise on its own.
 */
export function applyQuotaCeilings(
  requests: readonly QuotaRequest[],
  configured: Readonly<Record<string, string>>,
  ceilings: Ceilings,
): { hard: Record<string, string>; problems: Problem[] } {
  const hard: Record<string, string> = {};
  const problems: Problem[] = [];
  for (const request of requests) {
    const { resource, value } = request;
    const base = configured[resource];
    const ceiling = ceilings.quotas[resource];
    const aboveBase = base !== undefined && (compareQuantities(value, base) ?? 1) > 0;
    const aboveCeiling = ceiling !== undefined && (compareQuantities(value, ceiling) ?? 1) > 0;
    if (!aboveCeiling && (!aboveBase || ceiling !== undefined)) {
      hard[resource] = value;
      continue;
    }
    const kept = base ?? ceiling;
    if (base === undefined && ceiling !== undefined) hard[resource] = ceiling;
    problems.push({
      ...(request.label ?? {}),
      reason: 'CeilingExceeded',
      message: `${request.field} not applied: ${
        aboveCeiling
          ? `above the ceiling ${ceilingKey(resource)} (${ceiling})`
          : `above the configured ${base ?? ''}, and no ceiling ${ceilingKey(resource)} allows raising it`
      }; ${resource} stays ${kept ?? ''}`,
    });
  }
  return { hard, problems };
}
