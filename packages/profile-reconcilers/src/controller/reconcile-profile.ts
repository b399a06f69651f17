// One reconcile of one Profile: check that the namespace of its name is the Profile's to use
// (namespace-claim.ts), compute what every reconciler wants, make the namespace's objects match
// (apply-all.ts), then write the outcome to the Profile's status and record Events for repairs. A
// failing reconciler does not stop the others; the reconcile then fails as a whole so that the
// work queue retries it with backoff.
import type { KubeClient, KubeObject } from '@kfx/kube-runtime/client';
import type { ReadonlyStore } from '@kfx/kube-runtime/informer';
import type { EventInput, EventRecorder } from '@kfx/kube-runtime/controller';
import type { Logger } from '@kfx/kube-runtime/serving';
import { isProfileNamespace, profileNamespace, type Profile } from '../profile.js';
import type { EnabledReconciler, ReadView } from '../reconciler.js';
import { applyAll } from './apply-all.js';
import type { Change } from './apply-desired.js';
import { describeObject } from './describe.js';
import { desiredObjects, type DesiredSet } from './desired-objects.js';
import type { Echoes } from './echoes.js';
import type { ControllerMetrics } from './metrics.js';
import type { NamespaceClaim, NamespaceGuard } from './namespace-claim.js';
import type { OwnedKinds } from './owned-kinds.js';
import { podSecurityChange } from './pod-security-change.js';
import type { Pruned } from './prune.js';
import type { RequiredObjects } from './required-objects.js';
import { currentCondition, stateOf, type Outcome } from './status.js';
import type { StatusWriter } from './status-writer.js';

export interface ReconcileDeps {
  client: KubeClient;
  reconcilers: readonly EnabledReconciler[];
  kinds: OwnedKinds;
  /** The caches of what reconcilers read. */
  read: ReadView;
  /** Every namespace (what namespace-claim.ts reads, and the Pod Security labels). */
  namespaces: ReadonlyStore<KubeObject>;
  /** The cluster objects the reconcilers' objects rely on. */
  required: RequiredObjects;
  /** Decides whether a Profile may use the namespace of its name. */
  guard: NamespaceGuard;
  fieldManager: string;
  recorder: EventRecorder;
  metrics: ControllerMetrics;
  status: StatusWriter;
  echoes: Echoes;
  /**
   * kfx replaces the upstream Kubeflow profile controller: it handles that controller's
   * finalizer on deletion (finalize.ts).
   */
  replacesUpstream: boolean;
}

/** Why nothing is applied this time, if so: the namespace is not the Profile's to use (yet). */
function halted(
  profile: Profile,
  claim: NamespaceClaim,
  desired: DesiredSet,
): Pick<Outcome, 'waiting' | 'refused'> {
  if (claim.verdict === 'refuse') return { refused: claim };
  if (claim.verdict === 'wait') return { waiting: claim };
  if (claim.verdict === 'held') return {};
  if (desired.objects.some((d) => isProfileNamespace(profile, d.object))) return {};
  return {
    waiting: {
      reason: 'NamespaceMissing',
      message: `namespace ${profileNamespace(profile)} does not exist yet (the Kubeflow profile controller creates it, or enable the namespace reconciler)`,
    },
  };
}

export async function reconcileProfile(
  deps: ReconcileDeps,
  profile: Profile,
  signal: AbortSignal,
  logger: Logger,
): Promise<void> {
  const liveNamespace = deps.namespaces.get(profileNamespace(profile));
  const claim = deps.guard.judge(profile, liveNamespace);
  const held = claim.verdict === 'held';
  // A reconciler whose source is a tenant's namespace computes nothing: what it made before
  // from there is deleted as obsolete.
  const refusedSources = deps.guard.refusedSources(deps.namespaces);
  const reconcilers = deps.reconcilers.filter((r) => !refusedSources.has(r.name));
  const desired = desiredObjects(profile, reconcilers, deps.kinds, {
    adopted: held && claim.adopted,
    read: deps.read,
  });
  for (const [reconciler, keys] of desired.requires ?? []) {
    for (const message of deps.required.problems(keys)) {
      logger.warn({ reconciler }, message);
      desired.problems.push({ reconciler, message, reason: 'RequiredObjectMissing' });
    }
  }
  const outcome: Outcome = {
    applied: [],
    problems: desired.problems.map((p) => `${p.reconciler}: ${p.message}`),
    errors: new Map([...refusedSources, ...desired.errors]),
    ...halted(profile, claim, desired),
  };
  let changes: Change[] = [];
  let pruned: Pruned[] = [];
  if (!outcome.waiting && !outcome.refused) {
    const context = {
      client: deps.client,
      fieldManager: deps.fieldManager,
      signal,
      logger,
      namespaceHeld: held,
      liveNamespace,
    };
    ({ changes, pruned } = await applyAll(
      context,
      profile,
      desired,
      deps.kinds,
      outcome.errors,
      deps.namespaces,
    ));
    outcome.applied = deps.reconcilers
      .map((r) => r.name)
      .filter((name) => !outcome.errors.has(name));
  }

  const seenBefore = currentCondition(profile) !== undefined;
  const events: Promise<void>[] = [];
  const namespaceChange = changes.find((c) => isProfileNamespace(profile, c.object.object));
  const levelChange = podSecurityChange(
    profileNamespace(profile),
    liveNamespace,
    namespaceChange?.object.object,
    logger,
  );
  if (levelChange) events.push(deps.recorder.record(profile, levelChange));
  for (const change of changes) {
    deps.echoes.expect(change.object.id, change.resourceVersion);
    deps.metrics.wrote(change.object.kind.ref.kind, change.action);
    logger.info(
      { object: describeObject(change.object.object), reason: change.reason },
      change.action,
    );
    // An enforced label put back is told even on the first reconcile: on a take-over it undoes
    // what someone set on purpose.
    for (const label of change.reverted ?? []) {
      events.push(
        deps.recorder.record(profile, {
          type: 'Normal',
          reason: 'LabelReverted',
          message: `namespace ${profileNamespace(profile)}: label ${label.key} put back to ${JSON.stringify(label.to)} (it was ${JSON.stringify(label.from)}): the configuration enforces it (namespace.enforcedLabels)`,
        }),
      );
    }
    // A Profile's first objects are told by its condition; later writes are repairs worth an Event.
    if (!seenBefore) continue;
    const action = change.action.charAt(0).toUpperCase() + change.action.slice(1);
    events.push(
      deps.recorder.record(profile, {
        type: 'Normal',
        reason: action,
        message: `${change.action} ${describeObject(change.object.object)}: ${change.reason}`,
      }),
    );
  }
  for (const { kind, object } of pruned) {
    deps.metrics.wrote(kind.ref.kind, 'deleted');
    logger.info({ object: describeObject(object) }, 'deleted obsolete object');
    events.push(
      deps.recorder.record(profile, {
        type: 'Normal',
        reason: 'Deleted',
        message: `deleted ${describeObject(object)}: no reconciler wants it any more`,
      }),
    );
  }
  const warnings: EventInput[] = [];
  if (outcome.refused) {
    logger.warn({ reason: outcome.refused.reason }, outcome.refused.message);
    warnings.push({ type: 'Warning', ...outcome.refused });
  }
  warnings.push(
    ...desired.problems.map((problem): EventInput => ({
      type: 'Warning',
      reason: problem.reason ?? (problem.label === undefined ? 'ReconcileWarning' : 'InvalidLabel'),
      message: `${problem.reconciler}: ${problem.message}`,
    })),
  );
  for (const [reconciler, error] of outcome.errors) {
    warnings.push({
      type: 'Warning',
      reason: 'ReconcileFailed',
      message: `${reconciler}: ${error}`,
    });
  }
  await Promise.all([
    deps.status.write(profile.metadata?.name ?? '', { outcome, warnings }, signal),
    ...events,
  ]);
  deps.metrics.setState(profile.metadata?.name ?? '', stateOf(outcome));
  if (outcome.errors.size > 0) {
    throw new Error(
      `Profile ${profile.metadata?.name ?? ''}: ${[...outcome.errors].map(([n, e]) => `${n}: ${e}`).join('; ')}`,
    );
  }
}

/** A Profile past the controller's capacity: nothing applied, and its condition says why. */
export async function waitForCapacity(
  deps: ReconcileDeps,
  profile: Profile,
  message: string,
  signal: AbortSignal,
): Promise<void> {
  const outcome: Outcome = {
    applied: [],
    problems: [],
    errors: new Map(),
    waiting: { reason: 'ControllerFull', message },
  };
  const name = profile.metadata?.name ?? '';
  await deps.status.write(name, { outcome, warnings: [] }, signal);
  deps.metrics.setState(name, stateOf(outcome));
}
