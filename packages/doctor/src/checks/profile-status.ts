// Part of check `profiles`: Profiles kfx-controller did not reconcile (and why, from its
// KfxReconciled condition), and Profiles stuck deleting, naming the finalizer that holds them:
// upstream Kubeflow's `profile-finalizer` is removed by its profile controller, or by
// kfx-controller where it replaces that one (`replacesUpstream`); with neither, the Profile
// never goes.
import { CONDITION_TYPE, conditionReason, type Profile } from '@kfx/profile-reconcilers';
import { objectName, type Finding } from '../finding.js';
import type { Cluster } from '../cluster.js';
import type { Deployment } from '../objects.js';
import { controllerConfig, kfxControllers } from '../kfx-controller.js';

const UPSTREAM_FINALIZER = 'profile-finalizer';
/** A finalizer other than upstream's holding a Profile longer than this is a warning. */
const STUCK_AFTER_MS = 5 * 60_000;

/** Upstream's profile controller, as Kubeflow's manifests deploy it, with a ready replica. */
function upstreamControllerRuns(deployments: readonly Deployment[]): boolean {
  return deployments.some(
    (deployment) =>
      (deployment.metadata?.name === 'profiles-deployment' ||
        deployment.metadata?.labels?.['kustomize.component'] === 'profiles') &&
      (deployment.status?.readyReplicas ?? 0) > 0,
  );
}

const finding = (
  code: string,
  severity: Finding['severity'],
  profile: string,
  message: string,
  fix?: string,
): Finding => ({
  check: 'profiles',
  code: `profiles.${code}`,
  severity,
  object: objectName('Profile', profile),
  message,
  fix,
});

/** Who removes upstream's finalizer here: its own controller, kfx-controller, or nobody. */
type FinalizerKeeper = 'upstream' | 'kfx' | 'none';

function deletingFinding(
  profile: Profile,
  now: Date,
  keeper: FinalizerKeeper,
): Finding | undefined {
  const since = profile.metadata?.deletionTimestamp;
  if (typeof since !== 'string') return undefined;
  const name = profile.metadata?.name ?? '';
  const finalizers = profile.metadata?.finalizers ?? [];
  const index = finalizers.indexOf(UPSTREAM_FINALIZER);
  if (index >= 0 && keeper === 'kfx') {
    return finding(
      'stuck-finalizer',
      'error',
      name,
      `deleted at ${since} but still held by the finalizer ${UPSTREAM_FINALIZER}, which kfx-controller removes (replacesUpstream) once it has revoked the plugins' cloud grants`,
      `kubectl describe profile ${name} (kfx-controller's Events say what it could not revoke)`,
    );
  }
  if (index >= 0 && keeper === 'none') {
    const plugins = (profile.spec?.plugins ?? []).length;
    return finding(
      'stuck-finalizer',
      'error',
      name,
      `deleted at ${since} but held by the finalizer ${UPSTREAM_FINALIZER}, which only Kubeflow's profile controller removes, and none runs${plugins > 0 ? `; its ${plugins} plugin(s) had cloud grants revoked by that controller: revoke them by hand first` : ''}`,
      `kubectl patch profile ${name} --type json -p '[{"op":"remove","path":"/metadata/finalizers/${index}"}]'`,
    );
  }
  const age = now.getTime() - Date.parse(since);
  const others = finalizers.filter((each) => each !== UPSTREAM_FINALIZER);
  if (others.length === 0 || age < STUCK_AFTER_MS) return undefined;
  return finding(
    'stuck-deleting',
    'warning',
    name,
    `deleted at ${since} and still held by the finalizer${others.length === 1 ? '' : 's'} ${others.join(', ')}`,
    `find the controller that owns ${others[0] ?? ''}; kubectl get profile ${name} -o yaml`,
  );
}

function conditionFinding(profile: Profile): Finding | undefined {
  const name = profile.metadata?.name ?? '';
  if (typeof profile.metadata?.deletionTimestamp === 'string') return undefined;
  const condition = profile.status?.conditions?.find((each) => each.type === CONDITION_TYPE);
  if (!condition) {
    return finding(
      'not-reconciled',
      'warning',
      name,
      `no kfx-controller has reconciled it (no ${CONDITION_TYPE} condition): it is outside every release's profileSelector, or the controller is not running`,
      `kubectl get profile ${name} --show-labels; kubectl get pods -A -l app.kubernetes.io/name=kfx-controller`,
    );
  }
  if (condition.status !== 'False') return undefined;
  const reason = conditionReason(condition) ?? 'NotReconciled';
  // ControllerFull is the controller check's (with maxProfiles); a namespace on its way is a warning.
  if (reason === 'ControllerFull') return undefined;
  const message = (condition.message ?? '').replace(/^[A-Za-z]+: /, '');
  return finding(
    'not-ready',
    reason === 'NamespaceMissing' || reason === 'NamespaceTerminating' ? 'warning' : 'error',
    name,
    `not reconciled (${reason}): ${message}`,
    `kubectl describe profile ${name} (its Events say what kfx-controller refused or could not apply)`,
  );
}

export async function profileStatusFindings(cluster: Cluster): Promise<Finding[]> {
  const [profiles, deployments] = await Promise.all([cluster.profiles(), cluster.deployments()]);
  const installed = kfxControllers(deployments);
  const controllers = installed.length > 0;
  const configs = await Promise.all(installed.map((each) => controllerConfig(cluster, each)));
  const keeper: FinalizerKeeper = upstreamControllerRuns(deployments)
    ? 'upstream'
    : configs.some((config) => config.replacesUpstream === true)
      ? 'kfx'
      : 'none';
  const findings: Finding[] = [];
  for (const profile of profiles) {
    const deleting = deletingFinding(profile, cluster.now, keeper);
    if (deleting) findings.push(deleting);
    const condition = controllers ? conditionFinding(profile) : undefined;
    if (condition) findings.push(condition);
  }
  return findings;
}
