// What a user checks after installing kfx-controller with its default reconcilers (quotas,
// limitrange): a new Profile asking for a CPU quota gets it in its namespace (made here as
// Kubeflow's profile controller makes it), and its status says what was applied. For the tests
// that install the controller on the real node; it asserts with vitest.
import type { KubernetesObject, V1ResourceQuota } from '@kubernetes/client-node';
import { applyManifests, profileNamespace, waitFor, type ProfileLike } from '@kfx/testenv';
import { expect } from 'vitest';
import { getJson, listJson } from '../cluster.js';

export async function expectProfileConverged(kubeconfig: string, name: string): Promise<void> {
  const [profile] = await applyManifests(kubeconfig, {
    apiVersion: 'kubeflow.org/v1',
    kind: 'Profile',
    metadata: { name, labels: { 'quotas.kfx.dev/requests.cpu': '4' } },
    spec: { owner: { kind: 'User', name: 'bob@example.com' } },
  } as KubernetesObject);
  await applyManifests(kubeconfig, profileNamespace(profile as ProfileLike));
  const quota = await waitFor(
    async () => {
      const [found] = await listJson<V1ResourceQuota>(kubeconfig, ['resourcequotas'], name);
      const hard = found?.spec?.hard;
      return hard ? { done: true, value: hard } : { done: false, saw: 'no quota yet' };
    },
    { description: `kfx-controller to make the quota of ${name}`, timeoutMs: 120_000 },
  );
  expect(quota['requests.cpu']).toBe('4');
  const reconciled = await getJson<{
    status?: { conditions?: { type: string; message?: string }[] };
  }>(kubeconfig, ['profile', name]);
  expect(reconciled.status?.conditions).toContainEqual(
    expect.objectContaining({
      type: 'KfxReconciled',
      status: 'True',
      message: 'Reconciled: applied: quotas, limitrange',
    }),
  );
}
