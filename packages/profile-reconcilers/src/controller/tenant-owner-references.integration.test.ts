// A tenant who owns two Profiles, A and B, points objects of A's namespace at B (anyone who may
// write an object may write its ownerReferences): her own object labelled as kfx's, and A's
// `default-deny` NetworkPolicy. B's clean-up deletes nothing in A's namespace, A takes its
// policy back, and a policy deleted while it named B comes back at once (the resync is 600 s),
// on a real control plane where she is admin of her namespaces through kfx's own binding.
// On the package's shared plane: the controller selects this file's Profiles only.
import { isNotFound, resources, type KubeClient, type KubeObject } from '@kfx/kube-runtime/client';
import { useSharedControlPlane, waitFor, type SharedControlPlane } from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Profile } from '../profile.js';
import {
  allowed,
  condition,
  createProfile,
  eventMessages,
  fileProfiles,
  read,
  runController,
  testClient,
  type FileProfiles,
  type Running,
} from '../testing/harness.js';

let env: SharedControlPlane | undefined;
let running: Running | undefined;
let client: KubeClient;
/** The tenant, acting as herself (the API server's RBAC decides what she may do). */
let tenant: KubeClient;
let file: FileProfiles;
let a: Profile;
let b: Profile;
const TENANT = 'tess@example.com';
/** Longer than any reconcile takes, far shorter than the 600 s resync. */
const PROMPTLY = 120_000;

const nameOf = (profile: Profile) => profile.metadata?.name ?? '';
const uidOf = (profile: Profile) => profile.metadata?.uid ?? '';
const ownerRef = (profile: Profile) => ({
  apiVersion: 'kubeflow.org/v1',
  kind: 'Profile',
  name: nameOf(profile),
  uid: uidOf(profile),
  controller: true,
});

beforeAll(async () => {
  env = await useSharedControlPlane(inject('kfxControlPlane'), 'tenant-owner-references');
  client = testClient(env);
  file = fileProfiles(env);
  running = await runController(
    env,
    {
      rbac: { bindings: [{ name: 'namespaceAdmin', clusterRole: 'admin', owner: true }] },
      'network-policies': {},
    },
    { profileSelector: file.selector },
  );
  tenant = testClient({ kubeConfig: env.userKubeconfig(TENANT).kubeConfig });
  // Their namespaces as the upstream Kubeflow profile controller makes them.
  a = await createProfile(client, file.name('a'), file.labels, { owner: TENANT });
  b = await createProfile(client, file.name('b'), file.labels, { owner: TENANT });
  for (const profile of [a, b]) {
    await condition(client, nameOf(profile), (c) => c.reason === 'Reconciled', 'reconciled');
  }
  // Her rights in her namespaces come with the controller's namespaceAdmin binding.
  await waitFor(
    async () =>
      (await allowed(client, TENANT, 'update', 'pods', nameOf(a)))
        ? { done: true, value: undefined }
        : { done: false, saw: 'not allowed yet' },
    { description: `${TENANT} admin of ${nameOf(a)}`, timeoutMs: 60_000 },
  );
});

afterAll(async () => {
  await running?.stop();
  for (const profile of [a, b]) {
    await client.delete(resources.profiles, nameOf(profile)).catch(() => undefined);
  }
  tenant.close();
  client.close();
  await env?.release();
});

const policy = (namespace: string, name = 'default-deny') =>
  read<KubeObject>(client, 'networkPolicies', name, namespace);

/** Waits until the policy exists, not being deleted, and names `owner` as its only Profile. */
async function ownedBy(namespace: string, owner: Profile, description: string): Promise<void> {
  await waitFor(
    async () => {
      const live = await policy(namespace);
      const owners = (live?.metadata?.ownerReferences ?? []).filter((o) => o.kind === 'Profile');
      return live &&
        !live.metadata?.deletionTimestamp &&
        owners.every((o) => o.uid === uidOf(owner))
        ? owners.length > 0
          ? { done: true, value: undefined }
          : { done: false, saw: 'no Profile owner' }
        : { done: false, saw: JSON.stringify(live?.metadata ?? 'no default-deny') };
    },
    { description, timeoutMs: PROMPTLY },
  );
}

describe('an object of a Profile’s namespace pointed at another Profile', () => {
  it('is not deleted by that Profile’s clean-up, and its own Profile takes it back', async () => {
    const nsA = nameOf(a);
    const nsB = nameOf(b);
    // Her own object, labelled as kfx's and pointed at B…
    await tenant.create(resources.networkPolicies, {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: {
        name: 'tenant-own',
        namespace: nsA,
        labels: {
          'app.kubernetes.io/managed-by': 'kfx',
          'kfx.dev/reconciler': 'network-policies',
        },
        ownerReferences: [ownerRef(b)],
      },
      spec: { podSelector: {}, policyTypes: ['Ingress'] },
    } as KubeObject);
    // …and A's default-deny, re-pointed at B.
    await tenant.patch(
      resources.networkPolicies,
      'default-deny',
      { metadata: { ownerReferences: [ownerRef(b)] } },
      { namespace: nsA },
    );
    // B reconciles after both (its own deleted policy comes back): whatever its clean-up did to
    // them is done by then.
    await client.delete(resources.networkPolicies, 'default-deny', { namespace: nsB });
    await ownedBy(nsB, b, `B's default-deny back in ${nsB}`);

    const own = await policy(nsA, 'tenant-own');
    expect(own?.metadata?.deletionTimestamp).toBeUndefined();
    expect(own?.metadata?.ownerReferences?.[0]?.uid).toBe(uidOf(b));
    await ownedBy(nsA, a, `A's default-deny A's again in ${nsA}`);
    expect(await eventMessages(client, nsA, 'Recreated', /default-deny.*named Profile/)).toContain(
      `it named Profile ${nsB} as its owner`,
    );
    await condition(client, nsA, (c) => c.reason === 'Reconciled', 'reconciled');
  });

  it('comes back at once when deleted while it named the other Profile', async () => {
    const nsA = nameOf(a);
    await ownedBy(nsA, a, `A's default-deny in ${nsA}`);
    await tenant.patch(
      resources.networkPolicies,
      'default-deny',
      { metadata: { ownerReferences: [ownerRef(b)] } },
      { namespace: nsA },
    );
    // A may have taken it back already (deleted to be made again): then there is nothing to delete.
    await tenant
      .delete(resources.networkPolicies, 'default-deny', { namespace: nsA })
      .catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
    await ownedBy(nsA, a, `A's default-deny back in ${nsA}`);
  });
});
