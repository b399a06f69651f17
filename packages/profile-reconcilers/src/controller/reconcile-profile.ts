// One reconcile of one Profile: compute what every reconciler wants, make the namespace's
// objects match (apply-all.ts), then hand the outcome to the status writer and record Events
// for repairs. A failing reconciler does not stop the others; the reconcile then fails as a
// whole so that the work queue retries it with backoff.
import type {
  EventInput,
  EventRecorder,
  KubeClient,
  KubeObject,
  Logger,
  ReadonlyStore,
} from '@kfx/kube-runtime';
import { profileNamespace, type Profile } from '../profile.js';
import type { EnabledReconciler } from '../reconciler.js';
import { applyAll, describeObject } from './apply-all.js';
import type { Change } from './apply-desired.js';
import { desiredObjects, type DesiredSet } from './desired-objects.js';
import type { Echoes } from './echoes.js';
import type { ControllerMetrics } from './metrics.js';
import type { OwnedKinds } from './owned-kinds.js';
import type { Pruned } from './prune.js';
import { currentCondition, stateOf, type Outcome } from './status.js';
import type { StatusWriter } from './status-writer.js';

export interface ReconcileDeps {
  client: KubeClient;
  reconcilers: readonly EnabledReconciler[];
  kinds: OwnedKinds;
  /** Every namespace (name and deletion state only). */
  namespaces: ReadonlyStore<KubeObject>;
  fieldManager: string;
  recorder: EventRecorder;
  metrics: ControllerMetrics;
  status: StatusWriter;
  echoes: Echoes;
}

function waitingFor(
  profile: Profile,
  desired: DesiredSet,
  deps: ReconcileDeps,
): Outcome['waiting'] {
  const name = profileNamespace(profile);
  const live = deps.namespaces.get(name);
  if (live?.metadata?.deletionTimestamp) {
    return { reason: 'NamespaceTerminating', message: `namespace ${name} is being deleted` };
  }
  const createsIt = desired.objects.some(
    (d) => d.object.kind === 'Namespace' && d.object.metadata?.name === name,
  );
  if (!live && !createsIt) {
    return {
      reason: 'NamespaceMissing',
      message: `namespace ${name} does not exist yet (the Kubeflow profile controller creates it, or enable the namespace reconciler)`,
    };
  }
  return undefined;
}

export async function reconcileProfile(
  deps: ReconcileDeps,
  profile: Profile,
  signal: AbortSignal,
  logger: Logger,
): Promise<void> {
  const desired = desiredObjects(profile, deps.reconcilers, deps.kinds);
  const outcome: Outcome = {
    applied: [],
    problems: desired.problems.map((p) => `${p.reconciler}: ${p.message}`),
    errors: new Map(desired.errors),
    waiting: waitingFor(profile, desired, deps),
  };
  let changes: Change[] = [];
  let pruned: Pruned[] = [];
  if (!outcome.waiting) {
    const context = { client: deps.client, fieldManager: deps.fieldManager, signal, logger };
    ({ changes, pruned } = await applyAll(context, profile, desired, deps.kinds, outcome.errors));
    outcome.applied = deps.reconcilers
      .map((r) => r.name)
      .filter((name) => !outcome.errors.has(name));
  }

  const seenBefore = currentCondition(profile) !== undefined;
  const events: Promise<void>[] = [];
  for (const change of changes) {
    deps.echoes.expect(change.object.id, change.resourceVersion);
    deps.metrics.wrote(change.object.kind.ref.kind, change.action);
    logger.info(
      { object: describeObject(change.object.object), reason: change.reason },
      change.action,
    );
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
  const warnings: EventInput[] = desired.problems.map((problem) => ({
    type: 'Warning',
    reason: problem.label === undefined ? 'ReconcileWarning' : 'InvalidLabel',
    message: `${problem.reconciler}: ${problem.message}`,
  }));
  for (const [reconciler, error] of outcome.errors) {
    warnings.push({
      type: 'Warning',
      reason: 'ReconcileFailed',
      message: `${reconciler}: ${error}`,
    });
  }
  deps.status.submit(profile.metadata?.name ?? '', { outcome, warnings });
  await Promise.all(events);
  deps.metrics.setState(profile.metadata?.name ?? '', stateOf(outcome));
  if (outcome.errors.size > 0) {
    throw new Error(
      `Profile ${profile.metadata?.name ?? ''}: ${[...outcome.errors].map(([n, e]) => `${n}: ${e}`).join('; ')}`,
    );
  }
}
