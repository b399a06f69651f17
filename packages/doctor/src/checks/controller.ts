// Check `controller`: each kfx-controller release (its Deployments, by the chart's name label):
// a leader holds its Lease and renews it; Profiles wait with ControllerFull; and the Profiles
// it holds against maxProfiles (what its metrics say, through the API server's service proxy to
// its metrics Service, else its configuration file).
import { isNotFound, KubeApiError, resources } from '@kfx/kube-runtime/client';
import { CONDITION_TYPE, conditionReason } from '@kfx/profile-reconcilers';
import { objectName, type Finding } from '../finding.js';
import { ran, skipped, type Check } from '../check.js';
import type { Cluster } from '../cluster.js';
import type { Deployment, Lease } from '../objects.js';
import { controllerConfig, kfxControllers, type KfxControllerConfig } from '../kfx-controller.js';

/** At or past this share of maxProfiles, a warning. */
const NEAR_CAPACITY = 0.9;
const CAPACITY_METRIC = 'kfx_profile_controller_capacity_profiles';

/** maxProfiles as the running controller reports it (its metric), through the service proxy. */
async function reportedCapacity(
  cluster: Cluster,
  deployment: Deployment,
): Promise<number | undefined> {
  const namespace = deployment.metadata?.namespace ?? '';
  const service = `${deployment.metadata?.name ?? ''}-metrics`;
  const container = deployment.spec?.template?.spec?.containers?.[0];
  const port = container?.ports?.find((each) => each.name === 'metrics')?.containerPort;
  const path = `/api/v1/namespaces/${namespace}/services/http:${service}:${port ?? 8080}/proxy/metrics`;
  try {
    const text = await cluster.client.requestText('GET', path, {
      timeoutMs: 10_000,
      ...(cluster.signal ? { signal: cluster.signal } : {}),
    });
    const line = text.split('\n').find((each) => each.startsWith(`${CAPACITY_METRIC} `));
    const value = Number(line?.split(' ')[1]);
    return Number.isFinite(value) && value > 0 ? value : undefined;
  } catch (error) {
    if (error instanceof KubeApiError) return undefined;
    throw error;
  }
}

async function leaseFinding(
  cluster: Cluster,
  deployment: Deployment,
  config: KfxControllerConfig,
): Promise<Finding | undefined> {
  const namespace = deployment.metadata?.namespace ?? '';
  const name = config.leaderElection?.leaseName ?? 'kfx-controller';
  const object = objectName('Lease', name, namespace);
  const restart = `kubectl -n ${namespace} rollout restart deployment ${deployment.metadata?.name ?? ''}; kubectl -n ${namespace} logs deployment/${deployment.metadata?.name ?? ''}`;
  if ((deployment.spec?.replicas ?? 1) === 0) {
    return {
      check: 'controller',
      code: 'controller.scaled-down',
      severity: 'error',
      object: objectName('Deployment', deployment.metadata?.name ?? '', namespace),
      message: 'kfx-controller is scaled to 0: no Profile is reconciled',
      fix: `kubectl -n ${namespace} scale deployment ${deployment.metadata?.name ?? ''} --replicas=2`,
    };
  }
  let lease: Lease;
  try {
    lease = await cluster.client.get<Lease>(resources.leases, name, {
      namespace,
      ...(cluster.signal ? { signal: cluster.signal } : {}),
    });
  } catch (error) {
    if (!isNotFound(error)) throw error;
    return {
      check: 'controller',
      code: 'controller.no-lease',
      severity: 'error',
      object,
      message: 'no leader has ever taken the Lease: no replica reconciles Profiles',
      fix: restart,
    };
  }
  const renewed = Date.parse(lease.spec?.renewTime ?? '');
  const duration = (lease.spec?.leaseDurationSeconds ?? 15) * 1000;
  const age = cluster.now.getTime() - renewed;
  if (!lease.spec?.holderIdentity || Number.isNaN(renewed) || age > 2 * duration) {
    return {
      check: 'controller',
      code: 'controller.stale-lease',
      severity: 'error',
      object,
      message: `no leader renews the Lease (held by ${lease.spec?.holderIdentity ?? 'nobody'}, last renewed ${lease.spec?.renewTime ?? 'never'}): Profiles are not reconciled`,
      fix: restart,
    };
  }
  return undefined;
}

export const controllerCheck: Check = async ({ cluster }) => {
  const deployments = kfxControllers(await cluster.deployments());
  if (deployments.length === 0) return skipped('kfx-controller is not installed');
  const profiles = await cluster.profiles();
  const findings: Finding[] = [];
  const waiting = profiles.filter((profile) => {
    const condition = profile.status?.conditions?.find((each) => each.type === CONDITION_TYPE);
    return condition?.status === 'False' && conditionReason(condition) === 'ControllerFull';
  });
  for (const deployment of deployments) {
    const config = await controllerConfig(cluster, deployment);
    const lease = await leaseFinding(cluster, deployment, config);
    if (lease) findings.push(lease);
    const capacity = (await reportedCapacity(cluster, deployment)) ?? config.maxProfiles;
    const namespace = deployment.metadata?.namespace ?? '';
    const object = objectName('Deployment', deployment.metadata?.name ?? '', namespace);
    const raise = `raise resources.limits.memory of the kfx-controller release (maxProfiles follows it), or set config.maxProfiles, or share the Profiles among releases with config.profileSelector`;
    if (waiting.length > 0) {
      findings.push({
        check: 'controller',
        code: 'controller.full',
        severity: 'error',
        object,
        objects: waiting.map((profile) => objectName('Profile', profile.metadata?.name ?? '')),
        message: `${waiting.length} Profile${waiting.length === 1 ? '' : 's'} wait unreconciled (ControllerFull): kfx-controller holds at most ${capacity ?? 'maxProfiles'} Profiles`,
        fix: raise,
      });
    } else if (capacity !== undefined && profiles.length >= NEAR_CAPACITY * capacity) {
      findings.push({
        check: 'controller',
        code: 'controller.near-capacity',
        severity: 'warning',
        object,
        message: `${profiles.length} Profiles, ${Math.round((100 * profiles.length) / capacity)}% of maxProfiles (${capacity}): new ones will wait with ControllerFull`,
        fix: raise,
      });
    }
  }
  return ran(findings);
};
