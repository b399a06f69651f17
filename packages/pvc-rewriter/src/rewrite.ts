// The rewrite of one claim, in place, with the reason for what was (or was not) done. Pure: the
// webhook gives it what its caches know (namespace labels, existing StorageClasses), the offline
// preview gives it what the user passed, tests give it anything.
import type { V1PersistentVolumeClaim } from '@kubernetes/client-node';
import type { Plain } from '@kfx/admission-core';
import { describeObject } from '@kfx/kube-runtime/serving';
import type { HoldReason } from './movable.js';
import {
  matchRule,
  ruleName,
  UNSET_STORAGE_CLASS,
  type ClusterFacts,
  type MatchResult,
  type RewriteRule,
  type RuleMatch,
} from './rules.js';

export { ruleName };

export type Claim = Plain<V1PersistentVolumeClaim>;

/** Where the class the claim asked for is recorded (empty when it named none). */
export const ORIGINAL_CLASS_ANNOTATION = 'pvc-rewriter.kfx.dev/original-storage-class';
/** Claim annotation; `"false"` keeps the claim as it is. */
export const REWRITE_ANNOTATION = 'pvc-rewriter.kfx.dev/rewrite';
/** The pre-1.6 way to name a class, still honoured by Kubernetes and used by old manifests. */
const BETA_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

export interface RewriteContext extends ClusterFacts {
  /** true/false when known; undefined when it cannot be known (no API access, cache not synced). */
  storageClassExists?: ((name: string) => boolean | undefined) | undefined;
}

export interface RewriteOutcome {
  rewritten: boolean;
  /** One sentence: what was done, or why nothing was. */
  reason: string;
  match?: RuleMatch;
  /**
   * Set when the claim stayed on its class because the rule that would have moved it does not
   * take claims with a data source or of its volume mode.
   */
  skipped?: { index: number; reasons: HoldReason[] };
  /** For the user (admission warnings): a missing target class, an undecidable rule, a skip. */
  warnings: string[];
}

function describeClass(name: string | undefined): string {
  return name === undefined ? 'no class' : `class ${name}`;
}

/** `PersistentVolumeClaim team-a/data`, or `team-a/data-*` before the apiserver picks a name. */
export function claimRef(claim: Claim): string {
  return describeObject('PersistentVolumeClaim', claim.metadata);
}

function skipWarning(
  claim: Claim,
  current: string | undefined,
  rules: readonly RewriteRule[],
  { index, holds }: MatchResult['skipped'][number],
): string {
  const target = rules[index]?.storageClassName ?? '';
  const what = holds.map((hold) => hold.what).join(' and ');
  const fix = holds.map((hold) => hold.fix).join(' and ');
  return `pvc-rewriter: ${claimRef(claim)} keeps ${describeClass(current)}: ${what}, which StorageClass ${target} (${ruleName(index)}) usually cannot serve; ${fix} to move such claims`;
}

export function rewriteClaim(
  claim: Claim,
  rules: readonly RewriteRule[],
  context: RewriteContext = {},
): RewriteOutcome {
  const unchanged = (reason: string, warnings: string[] = []) => ({
    rewritten: false,
    reason,
    warnings,
  });
  // Typed as always there, but a preview may get any YAML.
  const spec = claim.spec as Claim['spec'] | null | undefined;
  if (typeof spec !== 'object' || spec === null) return unchanged('the claim has no spec');
  const annotations = claim.metadata?.annotations ?? {};
  if (annotations[REWRITE_ANNOTATION]?.trim().toLowerCase() === 'false') {
    return unchanged(`${REWRITE_ANNOTATION}: "false": left as it is`);
  }
  const beta = annotations[BETA_CLASS_ANNOTATION];
  const current = beta ?? spec.storageClassName ?? undefined;
  if (current === '') {
    return unchanged(
      'storageClassName "" asks for static binding (no provisioning): never rewritten',
    );
  }
  if (spec.volumeName)
    return unchanged(`pre-bound to PersistentVolume ${spec.volumeName}: never rewritten`);
  const modes = Array.isArray(spec.accessModes) ? spec.accessModes : [];
  if (modes.length === 0) {
    return unchanged('no accessModes: admitted unchanged for the apiserver to judge');
  }
  const { match, undecided, skipped } = matchRule(
    {
      accessModes: modes,
      storageClassName: current,
      dataSource: spec.dataSource,
      dataSourceRef: spec.dataSourceRef,
      volumeMode: spec.volumeMode,
    },
    rules,
    context,
  );
  const warnings = undecided.map(
    ({ index, why }) => `pvc-rewriter: ${ruleName(index)} skipped, it cannot be decided: ${why}`,
  );
  if (match === undefined) {
    const [first] = skipped;
    if (first !== undefined) {
      warnings.push(skipWarning(claim, current, rules, first));
      return {
        ...unchanged(
          `kept on ${describeClass(current)} by ${ruleName(first.index)}: ${first.holds.map((h) => h.what).join(' and ')}`,
          warnings,
        ),
        skipped: { index: first.index, reasons: first.holds.map((hold) => hold.reason) },
      };
    }
    return unchanged(
      `no rule matches accessModes ${modes.join(',')} on ${describeClass(current)}`,
      warnings,
    );
  }
  const target = match.rule.storageClassName;
  if (current === target) {
    return { ...unchanged(`already on ${target} (${ruleName(match.index)})`, warnings), match };
  }
  spec.storageClassName = target;
  claim.metadata = {
    ...claim.metadata,
    annotations: {
      ...annotations,
      ...(beta === undefined ? {} : { [BETA_CLASS_ANNOTATION]: target }),
      [ORIGINAL_CLASS_ANNOTATION]: current ?? '',
    },
  };
  if (context.storageClassExists?.(target) === false) {
    warnings.push(
      `pvc-rewriter: StorageClass ${target} (${ruleName(match.index)}) does not exist; the claim stays Pending until it does`,
    );
  }
  const from = current ?? UNSET_STORAGE_CLASS;
  return {
    rewritten: true,
    reason: `${from} → ${target} by ${ruleName(match.index)}`,
    match,
    warnings,
  };
}
