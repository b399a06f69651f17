import { describe, expect, it } from 'vitest';
import type { Profile } from '../profile.js';
import {
  conditionFor,
  conditionReason,
  sameCondition,
  withCondition,
  type Outcome,
} from './status.js';

const outcome = (over: Partial<Outcome> = {}): Outcome => ({
  applied: ['quotas', 'limitrange'],
  problems: [],
  errors: new Map(),
  ...over,
});

describe('the KfxReconciled condition', () => {
  it('lists the applied reconcilers', () => {
    expect(conditionFor(outcome(), 3)).toEqual({
      type: 'KfxReconciled',
      status: 'True',
      reason: 'Reconciled',
      message: 'Reconciled: applied: quotas, limitrange',
      observedGeneration: 3,
    });
  });

  it('stays True with warnings for ignored labels, and turns False with the last error', () => {
    const warned = conditionFor(outcome({ problems: ['quotas: label x="y" ignored'] }), 1);
    expect(warned).toMatchObject({ status: 'True', reason: 'ReconciledWithWarnings' });
    expect(warned.message).toBe(
      'ReconciledWithWarnings: applied: quotas, limitrange. ignored: quotas: label x="y" ignored',
    );
    const failed = conditionFor(
      outcome({ applied: ['limitrange'], errors: new Map([['quotas', '422 Invalid: nope']]) }),
      1,
    );
    expect(failed).toMatchObject({ status: 'False', reason: 'ReconcileFailed' });
    expect(failed.message).toBe(
      'ReconcileFailed: applied: limitrange. failed: quotas: 422 Invalid: nope',
    );
  });

  it('says what it waits for', () => {
    const waiting = conditionFor(
      outcome({
        waiting: { reason: 'NamespaceMissing', message: 'namespace x does not exist yet' },
      }),
      1,
    );
    expect(waiting).toMatchObject({
      status: 'False',
      reason: 'NamespaceMissing',
      message: 'NamespaceMissing: namespace x does not exist yet',
    });
  });

  it('replaces only its own condition and keeps the transition time while the status holds', () => {
    const profile: Profile = {
      status: {
        conditions: [
          { type: 'Ready', status: 'True' },
          {
            type: 'KfxReconciled',
            status: 'True',
            reason: 'Reconciled',
            message: 'old',
            lastTransitionTime: '2020-01-01T00:00:00Z',
          },
        ],
      },
    };
    const next = conditionFor(outcome(), 1);
    const conditions = withCondition(profile, next);
    expect(conditions[0]).toEqual({ type: 'Ready', status: 'True' });
    expect(conditions[1]).toMatchObject({
      message: 'Reconciled: applied: quotas, limitrange',
      lastTransitionTime: '2020-01-01T00:00:00Z',
    });
    const failed = withCondition(
      profile,
      conditionFor(outcome({ errors: new Map([['q', 'e']]) }), 1),
    );
    expect(failed[1]?.lastTransitionTime).not.toBe('2020-01-01T00:00:00Z');
    expect(sameCondition(conditions[1], next)).toBe(true);
    expect(sameCondition(conditions[1], conditionFor(outcome(), 2))).toBe(false);
  });
});

describe('on Kubeflow’s own Profile CRD', () => {
  it('keeps the reason in the message, and compares only what the server kept', () => {
    const next = conditionFor(
      outcome({ refused: { reason: 'NamespaceReserved', message: 'namespace kube is reserved' } }),
      4,
    );
    // What the server stores of it: type, status and message.
    const pruned = { type: next.type, status: next.status, message: next.message };
    expect(pruned.message).toBe('NamespaceReserved: namespace kube is reserved');
    expect(conditionReason(pruned)).toBe('NamespaceReserved');
    expect(sameCondition(pruned, next)).toBe(true);
    expect(sameCondition(pruned, conditionFor(outcome(), 4))).toBe(false);
  });
});
