// Which rule, if any, applies to a PersistentVolumeClaim. First match wins.
import { matchesSelector, type LabelSelector, type Labels } from './label-selector.js';

/** Stands for "the claim names no storageClassName" in `fromStorageClassNames`. */
export const UNSET_STORAGE_CLASS = '<unset>';

export interface RewriteRule {
  /** The claim matches when its accessModes include any of these, e.g. `['ReadWriteMany']`. */
  accessModes: readonly string[];
  /** Only claims on one of these classes (use `<unset>` for none). Absent: any class or none. */
  fromStorageClassNames?: readonly string[] | undefined;
  /** Only claims in namespaces whose labels match. Absent: every namespace. */
  namespaceSelector?: LabelSelector | undefined;
  /** The class the claim is rewritten to. */
  storageClassName: string;
}

export interface ClaimSpec {
  accessModes?: readonly string[] | undefined;
  storageClassName?: string | null | undefined;
  volumeName?: string | undefined;
}

/** The claim's namespace as the rules see it: its labels, or why they are not known. */
export type NamespaceLabels = { labels: Labels } | { unknown: string };

export interface RuleMatch {
  rule: RewriteRule;
  /** Position in the configured list, for messages (`pvcRewriter.rules[1]`). */
  index: number;
}

export interface MatchResult {
  match?: RuleMatch;
  /** Rules that would have matched but whose namespaceSelector could not be evaluated. */
  undecided: { index: number; why: string }[];
}

export function matchRule(
  spec: ClaimSpec,
  rules: readonly RewriteRule[],
  namespace?: NamespaceLabels,
): MatchResult {
  const modes = spec.accessModes ?? [];
  const current = spec.storageClassName ?? UNSET_STORAGE_CLASS;
  const undecided: MatchResult['undecided'] = [];
  for (const [index, rule] of rules.entries()) {
    if (!rule.accessModes.some((m) => modes.includes(m))) continue;
    if (rule.fromStorageClassNames && !rule.fromStorageClassNames.includes(current)) continue;
    if (rule.namespaceSelector) {
      if (namespace === undefined || 'unknown' in namespace) {
        undecided.push({ index, why: namespace?.unknown ?? 'the namespace labels are not known' });
        continue;
      }
      if (!matchesSelector(rule.namespaceSelector, namespace.labels)) continue;
    }
    return { match: { rule, index }, undecided };
  }
  return { undecided };
}

export function findRule(
  spec: ClaimSpec,
  rules: readonly RewriteRule[],
  namespace?: NamespaceLabels,
): RewriteRule | undefined {
  return matchRule(spec, rules, namespace).match?.rule;
}
