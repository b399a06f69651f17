import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@kfx/kube-runtime/client';
import type { Profile } from '../profile.js';
import { ownedChanged, profileChanged } from './event-filters.js';

describe('which events start a reconcile', () => {
  const profile: Profile = {
    metadata: { name: 'a', uid: 'u', generation: 1, resourceVersion: '1', labels: { x: '1' } },
  };

  it('a Profile resync, label, spec or deletion change does; a resourceVersion bump alone does not', () => {
    expect(profileChanged(profile, profile)).toBe(true);
    const bumped = { ...profile, metadata: { ...profile.metadata, resourceVersion: '2' } };
    expect(profileChanged(bumped, profile)).toBe(false);
    expect(
      profileChanged(
        { ...profile, metadata: { ...profile.metadata, labels: { x: '2' } } },
        profile,
      ),
    ).toBe(true);
    expect(
      profileChanged({ ...profile, metadata: { ...profile.metadata, generation: 2 } }, profile),
    ).toBe(true);
    expect(
      profileChanged(
        { ...profile, metadata: { ...profile.metadata, deletionTimestamp: 'now' } },
        profile,
      ),
    ).toBe(true);
  });

  it('an owned object whose status alone moved (a quota counting pods) does not', () => {
    type Quota = KubeObject & { spec: unknown; status: unknown };
    const apply = { manager: 'kfx-controller', operation: 'Apply' };
    const quota: Quota = {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'quotas', resourceVersion: '1', managedFields: [apply] },
      spec: { hard: { pods: '10' } },
      status: { used: { pods: '1' } },
    };
    const statusEntry = {
      manager: 'kube-controller-manager',
      operation: 'Update',
      subresource: 'status',
    };
    const counted: Quota = {
      ...quota,
      metadata: { ...quota.metadata, resourceVersion: '2', managedFields: [apply, statusEntry] },
      status: { used: { pods: '2' } },
    };
    expect(ownedChanged(counted, quota)).toBe(false);
    const edited: Quota = { ...counted, spec: { hard: { pods: '5' } } };
    expect(ownedChanged(edited, quota)).toBe(true);
  });
});
