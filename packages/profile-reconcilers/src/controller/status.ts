// The `KfxReconciled` condition on each Profile: which reconcilers applied, what was ignored and
// the last error, so `kubectl get profile x -o yaml` answers "did kfx do its job here?". It is
// written only when it changes: a steady cluster gets no status writes on resync. Kubeflow's own
// Profile CRD keeps only a condition's type, status and message (reason, observedGeneration and
// lastTransitionTime are pruned), so the message starts with the reason (`NamespaceReserved:
// …`), and a condition is compared only on what the server kept: otherwise every resync would
// find the pruned fields "changed" and write again.
import type { Profile, ProfileCondition } from '../profile.js';

export const CONDITION_TYPE = 'KfxReconciled';
const MAX_MESSAGE = 4000;

export type ProfileState = 'reconciled' | 'warnings' | 'failed' | 'waiting' | 'refused';

export interface Outcome {
  applied: string[];
  /** Messages about labels or templates that were ignored; the rest applied. */
  problems: string[];
  /** Reconciler name → its last error. */
  errors: Map<string, string>;
  /** Set when nothing could be applied, e.g. the namespace does not exist yet. */
  waiting?: { reason: string; message: string } | undefined;
  /** Set when nothing may be applied: the namespace is reserved or not this Profile's. */
  refused?: { reason: string; message: string } | undefined;
}

export function stateOf(outcome: Outcome): ProfileState {
  if (outcome.refused) return 'refused';
  if (outcome.waiting) return 'waiting';
  if (outcome.errors.size > 0) return 'failed';
  return outcome.problems.length > 0 ? 'warnings' : 'reconciled';
}

export function conditionFor(outcome: Outcome, generation: number | undefined): ProfileCondition {
  const parts: string[] = [];
  let status: ProfileCondition['status'] = 'True';
  let reason = 'Reconciled';
  const halted = outcome.refused ?? outcome.waiting;
  if (halted) {
    status = 'False';
    reason = halted.reason;
    parts.push(halted.message);
  } else {
    parts.push(
      outcome.applied.length > 0 ? `applied: ${outcome.applied.join(', ')}` : 'applied: none',
    );
    if (outcome.problems.length > 0) {
      reason = 'ReconciledWithWarnings';
      parts.push(`ignored: ${outcome.problems.join('; ')}`);
    }
    if (outcome.errors.size > 0) {
      status = 'False';
      reason = 'ReconcileFailed';
      const failed = [...outcome.errors].map(([name, error]) => `${name}: ${error}`);
      parts.push(`failed: ${failed.join('; ')}`);
    }
  }
  let message = `${reason}: ${parts.join('. ')}`;
  if (message.length > MAX_MESSAGE) message = `${message.slice(0, MAX_MESSAGE - 3)}...`;
  return {
    type: CONDITION_TYPE,
    status,
    reason,
    message,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
  };
}

export function currentCondition(profile: Profile): ProfileCondition | undefined {
  return profile.status?.conditions?.find((c) => c.type === CONDITION_TYPE);
}

/**
 * Whether the live condition `a` already says what `b` would: status and message (which starts
 * with the reason), and reason and observedGeneration where the Profile's schema keeps them.
 */
export function sameCondition(a: ProfileCondition | undefined, b: ProfileCondition): boolean {
  return (
    a?.status === b.status &&
    a.message === b.message &&
    (a.reason === undefined || a.reason === b.reason) &&
    (a.observedGeneration === undefined || a.observedGeneration === b.observedGeneration)
  );
}

/** The condition's reason: its own field, or the start of its message where that was pruned. */
export function conditionReason(condition: ProfileCondition): string | undefined {
  return condition.reason ?? /^([A-Za-z]+): /.exec(condition.message ?? '')?.[1];
}

/** The Profile's conditions with ours replaced; others' conditions are kept as they are. */
export function withCondition(profile: Profile, next: ProfileCondition): ProfileCondition[] {
  const previous = currentCondition(profile);
  const lastTransitionTime =
    previous?.status === next.status && previous.lastTransitionTime
      ? previous.lastTransitionTime
      : new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const others = (profile.status?.conditions ?? []).filter((c) => c.type !== CONDITION_TYPE);
  return [...others, { ...next, lastTransitionTime }];
}
