// The check of docs/migration/from-upstream-profile-controller.md: on Kubeflow's Profile CRD, a
// Profile whose namespace and objects the upstream controller made (the guide's old objects,
// owned by the Profile) is taken over by the kfx-controller binary run with the guide's values:
// every old object is still the same object, none is made twice, the owner's binding reads as
// Kubeflow's access management reads it, the Istio policy is added, and nothing is deleted when
// kfx-controller stops.
// It owns its control plane: kfx-controller acts on every Profile of the cluster.
import type { KubernetesObject, V1RoleBinding } from '@kubernetes/client-node';
import {
  applyManifests,
  CRDS,
  installCrds,
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

const guide = readGuide('from-upstream-profile-controller.md');
const dir = mkdtempSync(join(tmpdir(), 'kfx-e2e-upstream-profiles-'));
let env: ControlPlane | undefined;
let controller: ControllerUnderTest | undefined;
let kubeconfig = '';
/** `Kind/name` → uid of the objects the upstream controller made. */
const uids = new Map<string, string | undefined>();

const key = (object: KubernetesObject) => `${object.kind ?? ''}/${object.metadata?.name ?? ''}`;

beforeAll(async () => {
  env = await startControlPlane();
  kubeconfig = env.kubeconfigPath;
  await installCrds(kubeconfig, [CRDS.istioAuthorizationPolicy]);
  const [alice] = await applyManifests(kubeconfig, [
    {
      apiVersion: 'kubeflow.org/v1',
      kind: 'Profile',
      metadata: { name: 'alice' },
      spec: {
        owner: { kind: 'User', name: 'alice@example.com' },
        resourceQuotaSpec: { hard: { 'requests.cpu': '8' } },
      },
    } as KubernetesObject,
  ]);
  if (!alice) throw new Error('the Profile was not made');
  await applyManifests(kubeconfig, [profileNamespace(alice)]);
  const ownerReferences = [
    {
      apiVersion: 'kubeflow.org/v1',
      kind: 'Profile',
      name: 'alice',
      uid: alice.metadata?.uid ?? '',
      controller: true,
      blockOwnerDeletion: true,
    },
  ];
  const old = guide.yaml<KubernetesObject>('old-objects').map((object) => ({
    ...object,
    metadata: Object.assign({}, object.metadata, { ownerReferences }),
  }));
  for (const object of await applyManifests(kubeconfig, old)) {
    uids.set(key(object), object.metadata?.uid);
  }
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

/** What alice's namespace holds of the kinds the upstream controller made. */
async function objectsOfAlice(): Promise<KubernetesObject[]> {
  const kinds = ['rolebindings', 'serviceaccounts', 'resourcequotas'];
  const lists = await Promise.all(kinds.map((kind) => listJson(kubeconfig, [kind], 'alice')));
  return lists.flat().filter((o) => o.metadata?.name !== 'default');
}

describe(guide.file, () => {
  it('takes every object over in place: the same objects, none made twice', async () => {
    await waitFor(
      async () => {
        const objects = await objectsOfAlice();
        const taken = objects.filter(
          (o) => o.metadata?.labels?.['app.kubernetes.io/managed-by'] === 'kfx',
        );
        return taken.length === uids.size
          ? { done: true, value: undefined }
          : { done: false, saw: `${taken.length} of ${uids.size} taken over` };
      },
      { description: 'kfx-controller to take the old objects over', timeoutMs: 60_000 },
    );
    const objects = await objectsOfAlice();
    expect(new Map(objects.map((o) => [key(o), o.metadata?.uid]))).toEqual(uids);
    for (const object of objects)
      expect(object.metadata?.ownerReferences, key(object)).toHaveLength(1);
  });

  it('keeps the owner visible to Kubeflow’s access management, and adds the Istio policy', async () => {
    const binding = await getJson<V1RoleBinding>(
      kubeconfig,
      ['rolebinding', 'namespaceAdmin'],
      'alice',
    );
    expect(binding.metadata?.annotations).toMatchObject({
      user: 'alice@example.com',
      role: 'admin',
    });
    expect(binding.subjects).toHaveLength(1);
    expect(binding.roleRef.name).toBe('kubeflow-admin');
    const policy = await waitFor(
      async () => {
        const found = await listJson(
          kubeconfig,
          ['authorizationpolicies.security.istio.io'],
          'alice',
        );
        return found.length > 0
          ? { done: true, value: found[0] }
          : { done: false, saw: 'no AuthorizationPolicy yet' };
      },
      { description: 'the owner’s Istio policy', timeoutMs: 60_000 },
    );
    expect(policy?.metadata?.name).toBe('ns-owner-access-istio');
  });

  it('deletes nothing when kfx-controller stops, so the upstream controller can take over again', async () => {
    await controller?.stop();
    controller = undefined;
    const objects = await objectsOfAlice();
    expect(new Map(objects.map((o) => [key(o), o.metadata?.uid]))).toEqual(uids);
  });
});
