// Per-profile LimitRange overrides from Profile labels `<prefix>/<section>.<resource>: <quantity>`,
// e.g. `limitrange.kfx.dev/default.memory: 1Gi`. The same rules as quota labels: a malformed
// label is reported and skipped, the others apply.
import { parseQuantity } from '@kfx/kube-runtime/controller';
import type { LabelProblem } from './quota-labels.js';

export const LIMIT_SECTIONS = ['default', 'defaultRequest', 'max', 'min'] as const;
export type LimitSection = (typeof LIMIT_SECTIONS)[number];

/** A label key cannot hold a second `/`: `gpu` stands for `nvidia.com/gpu`. */
export const LIMIT_ALIASES: Readonly<Record<string, string>> = { gpu: 'nvidia.com/gpu' };

export interface LimitOverride {
  label: string;
  value: string;
  section: LimitSection;
  resource: string;
}

const RESOURCE = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

export function limitOverridesFromLabels(
  labels: Readonly<Record<string, string>> | undefined,
  prefix: string,
  aliases: Readonly<Record<string, string>> = LIMIT_ALIASES,
): { overrides: LimitOverride[]; problems: LabelProblem[] } {
  const overrides: LimitOverride[] = [];
  const problems: LabelProblem[] = [];
  const start = `${prefix}/`;
  // Sorted, so that when two labels contradict each other the outcome does not depend on order.
  for (const label of Object.keys(labels ?? {}).sort()) {
    if (!label.startsWith(start)) continue;
    const value = labels?.[label] ?? '';
    const rest = label.slice(start.length);
    const dot = rest.indexOf('.');
    const section = rest.slice(0, dot) as LimitSection;
    const short = rest.slice(dot + 1);
    if (dot < 0 || !LIMIT_SECTIONS.includes(section) || !RESOURCE.test(short)) {
      problems.push({
        label,
        value,
        reason: `the label name must be <section>.<resource> with section one of ${LIMIT_SECTIONS.join(', ')} (e.g. ${prefix}/default.memory)`,
      });
      continue;
    }
    const quantity = parseQuantity(value);
    if (!quantity || quantity.numerator < 0n) {
      problems.push({
        label,
        value,
        reason: `"${value}" is not a non-negative Kubernetes quantity (e.g. 500m, 2Gi)`,
      });
      continue;
    }
    overrides.push({ label, value, section, resource: aliases[short] ?? short });
  }
  return { overrides, problems };
}
