// What happens when a Profile is deleted. Garbage collection deletes what kfx made for it (the
// ownerReferences); the Profile itself waits for its finalizers. The upstream Kubeflow profile
// controller puts `profile-finalizer` on every Profile and, on deletion, revokes its plugins'
// cloud side before removing it. Where kfx replaces that controller (`replacesUpstream`), it
// does what of that still applies: it deletes what it made for the Profile's plugins (a Config
// Connector IAMPolicyMember, whose deletion removes the Google binding), says in an Event which
// cloud-side clean-up no longer happens (an AWS role's trust policy, a Google binding kfx did
// not make), then removes the finalizer. A Profile still held by any finalizer says which in its
// condition, instead of a stale "Reconciled".
import { isConflict, isNotFound, resources, type KubeObject } from '@kfx/kube-runtime/client';
import { type EventInput } from '@kfx/kube-runtime/controller';
import { messageOf, type Logger } from '@kfx/kube-runtime/serving';
import { profileNamespace, type Profile } from '../profile.js';
import { PLUGIN_LABEL } from '../workload-identity.js';
import { describeObject } from './describe.js';
import type { OwnedKind } from './owned-kinds.js';
import type { ReconcileDeps } from './reconcile-profile.js';
import { stateOf, type Outcome } from './status.js';
import { KUBEFLOW_EDITOR_SERVICE_ACCOUNT } from '../kubeflow-names.js';

/** The upstream Kubeflow profile controller's finalizer, on every Profile it reconciled. */
const UPSTREAM_FINALIZER = 'profile-finalizer';

/** Why each finalizer holds the Profile, for its condition. */
function holder(finalizer: string, replacesUpstream: boolean): string {
  if (finalizer === UPSTREAM_FINALIZER && !replacesUpstream) {
    return `${finalizer} (the upstream Kubeflow profile controller's, which removes it; kfx removes it only where it replaces that controller: replacesUpstream: true)`;
  }
  if (finalizer === 'foregroundDeletion') {
    return `${finalizer} (the garbage collector's: it deletes what the Profile owns, its namespace too, first)`;
  }
  if (finalizer === 'orphan') return `${finalizer} (the garbage collector's)`;
  return `${finalizer} (not kfx's: whoever added it removes it)`;
}

/** What kfx made for the Profile's plugins: owned by it, labelled `kfx.dev/plugin`. */
function pluginObjects(deps: ReconcileDeps, profile: Profile): [OwnedKind, KubeObject][] {
  const uid = profile.metadata?.uid ?? '';
  const found: [OwnedKind, KubeObject][] = [];
  for (const kind of deps.kinds.byKey.values()) {
    for (const object of kind.informer.store.byIndex('owner', uid)) {
      if (object.metadata?.labels?.[PLUGIN_LABEL] !== undefined) found.push([kind, object]);
    }
  }
  return found;
}

/** The cloud-side clean-up upstream did on deletion that nobody does now. */
function cloudLeftovers(profile: Profile, revokedGoogle: boolean): string[] {
  const namespace = profileNamespace(profile);
  const left: string[] = [];
  for (const plugin of (profile.spec?.plugins ?? []) as { kind?: unknown; spec?: unknown }[]) {
    const spec = (plugin.spec ?? {}) as Record<string, unknown>;
    if (plugin.kind === 'AwsIamForServiceAccount' && spec.annotateOnly !== true) {
      left.push(
        `the trust policy of IAM role ${String(spec.awsIamRole)} still allows system:serviceaccount:${namespace}:${KUBEFLOW_EDITOR_SERVICE_ACCOUNT} (upstream removed it; kfx does not edit IAM)`,
      );
    }
    if (plugin.kind === 'WorkloadIdentity' && !revokedGoogle) {
      left.push(
        `Google service account ${String(spec.gcpServiceAccount)} still grants roles/iam.workloadIdentityUser to <project>.svc.id.goog[${namespace}/${KUBEFLOW_EDITOR_SERVICE_ACCOUNT}] (upstream removed it; kfx made no Config Connector binding for it)`,
      );
    }
  }
  return left;
}

/** Deletes what kfx made for the plugins; true when a Google binding was among them. */
async function revokePlugins(
  deps: ReconcileDeps,
  profile: Profile,
  signal: AbortSignal,
  logger: Logger,
): Promise<boolean> {
  let google = false;
  for (const [kind, object] of pluginObjects(deps, profile)) {
    if (object.metadata?.labels?.[PLUGIN_LABEL] === 'WorkloadIdentity') google = true;
    await deps.client
      .delete(kind.ref, object.metadata?.name ?? '', {
        namespace: kind.ref.namespaced ? object.metadata?.namespace : undefined,
        preconditions: { uid: object.metadata?.uid ?? '' },
        signal,
      })
      .catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
    deps.metrics.wrote(kind.ref.kind, 'deleted');
    logger.info(
      { object: describeObject(object) },
      'deleted what a plugin of a deleted Profile made',
    );
  }
  return google;
}

/** A Profile being deleted: upstream's finalizer handled where kfx replaces it; what holds it told. */
export async function finalizeProfile(
  deps: ReconcileDeps,
  profile: Profile,
  signal: AbortSignal,
  logger: Logger,
): Promise<void> {
  const name = profile.metadata?.name ?? '';
  let finalizers = profile.metadata?.finalizers ?? [];
  if (deps.replacesUpstream && finalizers.includes(UPSTREAM_FINALIZER)) {
    const events: EventInput[] = [];
    try {
      const google = await revokePlugins(deps, profile, signal, logger);
      const left = cloudLeftovers(profile, google);
      if (left.length > 0) {
        logger.warn({ left }, 'cloud-side clean-up that no longer happens');
        events.push({
          type: 'Warning',
          reason: 'CloudCleanupSkipped',
          message: `Profile deleted; not cleaned up: ${left.join('; ')}`,
        });
      }
      finalizers = finalizers.filter((f) => f !== UPSTREAM_FINALIZER);
      // Conditional on what was read: a Profile changed meanwhile is read again and retried.
      await deps.client.patch(
        resources.profiles,
        name,
        { metadata: { resourceVersion: profile.metadata?.resourceVersion, finalizers } },
        { type: 'merge', signal },
      );
      logger.info({ finalizer: UPSTREAM_FINALIZER }, 'removed the upstream finalizer');
    } catch (error) {
      if (isNotFound(error)) return;
      // Changed meanwhile: the retry reads it again. Anything else is told while it holds.
      if (!isConflict(error) && !signal.aborted) {
        const still = profile.metadata?.finalizers ?? [];
        await report(
          deps,
          profile,
          still,
          signal,
          `kfx could not finish its clean-up: ${messageOf(error)}`,
        );
      }
      throw error;
    }
    await Promise.all(events.map((event) => deps.recorder.record(profile, event)));
  }
  if (finalizers.length > 0) await report(deps, profile, finalizers, signal);
}

/** The condition of a Profile held by finalizers. */
async function report(
  deps: ReconcileDeps,
  profile: Profile,
  finalizers: readonly string[],
  signal: AbortSignal,
  trouble?: string,
): Promise<void> {
  const name = profile.metadata?.name ?? '';
  const held = finalizers.map((f) => holder(f, deps.replacesUpstream)).join(', ');
  const outcome: Outcome = {
    applied: [],
    problems: [],
    errors: new Map(),
    waiting: {
      reason: 'FinalizerPending',
      message: `Profile ${name} is being deleted and waits for finalizer${finalizers.length > 1 ? 's' : ''} ${held}${trouble ? `; ${trouble}` : ''}`,
    },
  };
  await deps.status.write(name, { outcome, warnings: [], terminating: true }, signal);
  deps.metrics.setState(name, stateOf(outcome));
}
