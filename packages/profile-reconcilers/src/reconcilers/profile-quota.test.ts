import type { V1ResourceQuota } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { enableReconciler } from '../enable.js';
import type { Profile } from '../profile.js';
import { profileQuotaReconciler } from './profile-quota.js';

const profile = (resourceQuotaSpec?: unknown): Profile => ({
  metadata: { name: 'team-a', uid: 'u-1' },
  spec: {
    owner: { kind: 'User', name: 'alice@example.com' },
    ...(resourceQuotaSpec === undefined ? {} : { resourceQuotaSpec }),
  },
});
const run = (p: Profile, config: unknown = {}) =>
  enableReconciler(profileQuotaReconciler, config, {
    baseDir: '.',
    key: 'reconcilers.profile-quota',
  }).desired(p);

describe('profile-quota', () => {
  it('makes kf-resource-quota from spec.resourceQuotaSpec, as the upstream controller does', () => {
    const { objects, problems } = run(
      profile({ hard: { cpu: '4', 'requests.nvidia.com/gpu': 1 }, scopes: ['NotTerminating'] }),
    );
    expect(problems).toEqual([]);
    expect(objects).toEqual([
      {
        apiVersion: 'v1',
        kind: 'ResourceQuota',
        metadata: { name: 'kf-resource-quota', namespace: 'team-a' },
        spec: { hard: { cpu: '4', 'requests.nvidia.com/gpu': '1' }, scopes: ['NotTerminating'] },
      },
    ]);
    const renamed = run(profile({ hard: { pods: '10' } }), { name: 'profile-quota' });
    expect((renamed.objects[0] as V1ResourceQuota).metadata?.name).toBe('profile-quota');
  });

  it('wants no quota without a spec or with an empty hard, so one made before is deleted', () => {
    for (const spec of [undefined, null, {}, { hard: {} }]) {
      expect(run(profile(spec))).toEqual({ objects: [], problems: [] });
    }
  });

  it('applies nothing of a spec that is wrong anywhere, keeps the quota in place, and names the field', () => {
    const { objects, problems, incomplete } = run(
      profile({ hard: { cpu: 'lots', pods: '1.5', cpus: '2', memory: '1Gi' }, hrad: {} }),
    );
    expect(objects).toEqual([]);
    expect(incomplete).toBe(true);
    expect(problems.map((p) => p.message)).toEqual([
      'spec.resourceQuotaSpec.hrad: not a field of a ResourceQuotaSpec (hard, scopes, scopeSelector)',
      'spec.resourceQuotaSpec.hard["cpu"]: "lots" is not a Kubernetes quantity (e.g. 4, 500m, 16Gi)',
      'spec.resourceQuotaSpec.hard["pods"]: "1.5" is not a whole number, and pods counts objects',
      'spec.resourceQuotaSpec.hard["cpus"]: "cpus" is not a resource a ResourceQuota can limit (e.g. requests.cpu, limits.memory, pods, requests.storage)',
      'ResourceQuota kf-resource-quota is left as it was until spec.resourceQuotaSpec is fixed',
    ]);
  });
});
