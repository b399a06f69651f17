// The check of docs/migration/from-statcan-profiles-controller.md: the guide's Helm values, run
// by the kfx-controller binary, give the guide's Profile the quota, limit range and binding the
// old controller made (taking the old objects over, and from scratch for a new Profile), and the
// NetworkPolicies the guide lists.
import type {
  KubernetesObject,
  V1LimitRange,
  V1ResourceQuota,
  V1RoleBinding,
} from '@kubernetes/client-node';
import {
  applyManifests,
  profileNamespace,
  startControlPlane,
  waitFor,
  type ControlPlane,
} from '@kfx/testenv';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, listJson } from '../cluster.js';
import { startControllerFromChart, type ControllerUnderTest } from '../controller-server.js';
import { readGuide } from '../guide.js';

const guide = readGuide('from-statcan-profiles-controller.md');
const dir = mkdtempSync(join(tmpdir(), 'kfx-e2e-statcan-'));
let env: ControlPlane | undefined;
let controller: ControllerUnderTest | undefined;
let kubeconfig = '';

interface Profile {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec?: unknown;
}
const [profile] = guide.yaml<Profile>('profile');
const old = guide.yaml<KubernetesObject>('old-objects');
const stored: { quota?: V1ResourceQuota; limitRange?: V1LimitRange; binding?: V1RoleBinding } = {};

beforeAll(async () => {
  if (!profile) throw new Error(`${guide.file}: the profile block holds no Profile`);
  env = await startControlPlane();
  kubeconfig = env.kubeconfigPath;
  // The guide's Profile, and a new one with the same labels that has no old objects.
  const profiles = await applyManifests(kubeconfig, [
    profile,
    { ...profile, metadata: { ...profile.metadata, name: 'bob' } },
  ] as KubernetesObject[]);
  // The upstream Kubeflow profile controller made their namespaces, owned by the Profiles.
  await applyManifests(kubeconfig, profiles.map(profileNamespace));
  // What the old controller left in the Profile's namespace, as the API server stores it.
  const applied = await applyManifests(kubeconfig, old);
  stored.quota = applied.find((o) => o.kind === 'ResourceQuota') as V1ResourceQuota;
  stored.limitRange = applied.find((o) => o.kind === 'LimitRange') as V1LimitRange;
  stored.binding = applied.find((o) => o.kind === 'RoleBinding') as V1RoleBinding;
  controller = await startControllerFromChart({
    values: guide.text('controller-values'),
    kubeconfigPath: kubeconfig,
    dir,
  });
});

afterAll(async () => {
  await controller?.stop();
  await env?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The object once kfx-controller has applied it (its managed-by label says so). */
async function managed<T extends KubernetesObject>(kind: string, name: string, namespace: string) {
  return waitFor(
    async () => {
      const object = await getJson<T>(kubeconfig, [kind, name], namespace);
      return object.metadata?.labels?.['app.kubernetes.io/managed-by'] === 'kfx'
        ? { done: true, value: object }
        : { done: false, saw: `labels ${JSON.stringify(object.metadata?.labels ?? {})}` };
    },
    { description: `kfx-controller to apply ${kind} ${namespace}/${name}`, timeoutMs: 60_000 },
  );
}

describe(guide.file, () => {
  it('the guide shows the old objects it compares with', () => {
    expect(old.map((o) => o.kind)).toEqual(['ResourceQuota', 'LimitRange', 'RoleBinding']);
    expect(stored.quota?.spec?.hard).toBeDefined();
  });

  it.each(['alice', 'bob'])(
    'Profile %s gets the quota, limit range and binding the old controller made',
    async (namespace) => {
      const quota = await managed<V1ResourceQuota>('resourcequota', 'quotas', namespace);
      expect(quota.spec?.hard).toEqual(stored.quota?.spec?.hard);
      expect(quota.metadata?.labels?.['kfx.dev/reconciler']).toBe('quotas');

      const limitRange = await managed<V1LimitRange>(
        'limitrange',
        'default-container-limits',
        namespace,
      );
      expect(limitRange.spec?.limits).toEqual(stored.limitRange?.spec?.limits);

      const binding = await managed<V1RoleBinding>('rolebinding', 'profile-support', namespace);
      expect(binding.roleRef).toEqual(stored.binding?.roleRef);
      expect(binding.subjects).toEqual(stored.binding?.subjects);
    },
  );

  it('makes the NetworkPolicies the guide lists', async () => {
    const expected = guide.text('network-policies').trim().split('\n');
    const names = await waitFor(
      async () => {
        const items = await listJson(kubeconfig, ['networkpolicies'], 'alice');
        const got = items
          .map((p) => `networkpolicy.networking.k8s.io/${p.metadata?.name ?? ''}`)
          .sort();
        return got.length >= expected.length
          ? { done: true, value: got }
          : { done: false, saw: got.join(', ') };
      },
      { description: 'the NetworkPolicies in alice', timeoutMs: 60_000 },
    );
    expect(names).toEqual(expected);
  });
});
