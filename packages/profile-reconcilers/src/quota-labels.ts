// Per-profile quota overrides from Profile labels `<prefix>/<resource>: <quantity>`.
// Labels, not annotations, because GitOps tools ignore label drift on Profiles. A malformed
// value must never stop the other overrides (a site controller crashed on one): it is reported.
import { quotaResourceProblem, quotaValueProblem } from './quota-resources.js';

/** A label key cannot hold a second `/`, so these short names stand for longer resource names. */
export const RESOURCE_ALIASES: Readonly<Record<string, string>> = {
  gpu: 'requests.nvidia.com/gpu',
};

const QUANTITY = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[KMGTPE]i|[numkMGTPE]|[eE][+-]?\d+)?$/;

export function isQuantity(value: string): boolean {
  return QUANTITY.test(value);
}

export interface LabelProblem {
  label: string;
  value: string;
  reason: string;
}

export interface QuotaOverrides {
  hard: Record<string, string>;
  /** Each label that set a value of `hard`, with the resource it names. */
  requests: { label: string; value: string; resource: string }[];
  problems: LabelProblem[];
}

export interface QuotaLabelOptions {
  /** Short names for resources whose names hold a `/`. Default {@link RESOURCE_ALIASES}. */
  aliases?: Readonly<Record<string, string>> | undefined;
}

export function quotaOverridesFromLabels(
  labels: Readonly<Record<string, string>> | undefined,
  prefix: string,
  options: QuotaLabelOptions = {},
): QuotaOverrides {
  const aliases = options.aliases ?? RESOURCE_ALIASES;
  const hard: Record<string, string> = {};
  const requests: QuotaOverrides['requests'] = [];
  const problems: LabelProblem[] = [];
  const start = `${prefix}/`;
  for (const [label, value] of Object.entries(labels ?? {})) {
    if (!label.startsWith(start)) continue;
    const short = label.slice(start.length);
    const resource = aliases[short] ?? short;
    const reason = quotaResourceProblem(resource) ?? quotaValueProblem(resource, value);
    if (reason) {
      problems.push({ label, value, reason });
      continue;
    }
    hard[resource] = value;
    requests.push({ label, value, resource });
  }
  return { hard, requests, problems };
}
