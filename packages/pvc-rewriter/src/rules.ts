// Which rule, if any, applies to a PersistentVolumeClaim. First match wins; a rule that would
// match but must leave the claim on its class (a data source, a block volume) does not match it,
// so a later rule that takes such claims still can.
import { matchesLabelSelector, type LabelSelector, type Labels } from '@kfx/kube-runtime/client';
import { holds, type Hold, type MovableRule, type MovableSpec } from './movable.js';

/** Stands for "the claim names no storageClassName" in `fromStorageClassNames`. */
export const UNSET_STORAGE_CLASS = '<unset>';
/**
 * Stands for "the class the cluster marks as default" in `fromStorageClassNames`. The apiserver's
 * DefaultStorageClass admission runs before webhooks, so where a default class exists a claim
 * that named none arrives carrying the default's name, and `<unset>` alone never matches it.
 */
export const DEFAULT_STORAGE_CLASS = '<default>';

/** How messages name a rule: its key path in the configuration file. */
export const ruleName = (index: number) => `pvcRewriter.rules[${index}]`;

export interface RewriteRule extends MovableRule {
  /** The claim matches when its accessModes include any of these, e.g. `['ReadWriteMany']`. */
  accessModes: readonly string[];
  /**
   * Only claims on one of these classes (`<unset>` for none, `<default>` for the cluster's
   * default class). Absent: any class or none.
   */
  fromStorageClassNames?: readonly string[] | undefined;
  /** Only claims in namespaces whose labels match. Absent: every namespace. */
  namespaceSelector?: LabelSelector | undefined;
  /** The class the claim is rewritten to. */
  storageClassName: string;
}

export interface ClaimSpec extends MovableSpec {
  accessModes?: readonly string[] | undefined;
  storageClassName?: string | null | undefined;
  volumeName?: string | undefined;
}

/** The claim's namespace as the rules see it: its labels, or why they are not known. */
export type NamespaceLabels = { labels: Labels } | { unknown: string };

/** What the rules may need to know about the cluster. */
export interface ClusterFacts {
  namespace?: NamespaceLabels | undefined;
  /** Names of the StorageClasses marked default; undefined when not known. */
  defaultStorageClasses?: ReadonlySet<string> | undefined;
}

export interface RuleMatch {
  rule: RewriteRule;
  /** Position in the configured list, for messages (`pvcRewriter.rules[1]`). */
  index: number;
}

export interface MatchResult {
  match?: RuleMatch;
  /** Rules that might have matched but could not be decided (unknown namespace labels or default class). */
  undecided: { index: number; why: string }[];
  /** Rules that match everything else about the claim but must leave it on its class. */
  skipped: { index: number; holds: Hold[] }[];
}

/** Whether the claim's class is one the rule rewrites from; a string says why it cannot tell. */
function fromMatches(rule: RewriteRule, current: string, facts: ClusterFacts): boolean | string {
  const from = rule.fromStorageClassNames;
  if (from === undefined || from.includes(current)) return true;
  if (!from.includes(DEFAULT_STORAGE_CLASS) || current === UNSET_STORAGE_CLASS) return false;
  const defaults = facts.defaultStorageClasses;
  if (defaults === undefined) return 'the default StorageClass is not known';
  return defaults.has(current);
}

export function matchRule(
  spec: ClaimSpec,
  rules: readonly RewriteRule[],
  facts: ClusterFacts = {},
): MatchResult {
  const modes = spec.accessModes ?? [];
  const current = spec.storageClassName ?? UNSET_STORAGE_CLASS;
  const undecided: MatchResult['undecided'] = [];
  const skipped: MatchResult['skipped'] = [];
  for (const [index, rule] of rules.entries()) {
    if (!rule.accessModes.some((m) => modes.includes(m))) continue;
    const from = fromMatches(rule, current, facts);
    if (typeof from === 'string') {
      undecided.push({ index, why: from });
      continue;
    }
    if (!from) continue;
    if (rule.namespaceSelector) {
      const { namespace } = facts;
      if (namespace === undefined || 'unknown' in namespace) {
        undecided.push({ index, why: namespace?.unknown ?? 'the namespace labels are not known' });
        continue;
      }
      if (!matchesLabelSelector(rule.namespaceSelector, namespace.labels)) continue;
    }
    // A claim already on the rule's class stays there either way: that is a match, not a skip.
    const held = rule.storageClassName === current ? [] : holds(rule, spec, ruleName(index));
    if (held.length > 0) {
      skipped.push({ index, holds: held });
      continue;
    }
    return { match: { rule, index }, undecided, skipped };
  }
  return { undecided, skipped };
}

export function findRule(
  spec: ClaimSpec,
  rules: readonly RewriteRule[],
  facts: ClusterFacts = {},
): RewriteRule | undefined {
  return matchRule(spec, rules, facts).match?.rule;
}
