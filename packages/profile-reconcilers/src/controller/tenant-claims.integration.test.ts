// A tenant (here mallory, who may create a Profile of any name, as Kubeflow's registration lets
// her) tries to claim what the platform depends on, on a real control plane with
// controller-manager: a namespace the configuration names (the network policies' monitoring peer,
// the Secrets' source), a platform namespace installed later, an object outside her namespace
// that merely carries kfx's label, a namespace adopted for a Group. None of it works, with the
// defaults a site gets.
// It owns its control plane: its Profiles are named after fixed namespaces (monitoring, kube,
// argocd, shared, …) that another file on the same plane could hold or need.
import { resources, type KubeClient, type OwnerReference } from '@kfx/kube-runtime/client';
import { startControlPlane, waitFor, type ControlPlane } from '@kfx/testenv';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Profile } from '../profile.js';
import {
  allowed,
  condition,
  createProfile,
  eventually,
  read,
  runController,
  testClient,
  type Running,
} from '../testing/harness.js';
import { ADOPT_ANNOTATION } from './namespace-claim.js';

let env: ControlPlane | undefined;
let running: Running | undefined;
let client: KubeClient;
const MALLORY = 'mallory@example.com';

const sharedTemplate = `
apiVersion: v1
kind: ConfigMap
metadata:
  name: "{{ profile.name }}-settings"
  namespace: shared
data:
  owner: "{{ owner.name }}"
`;

const b64 = (text: string) => Buffer.from(text).toString('base64');

beforeAll(async () => {
  env = await startControlPlane({ components: ['controller-manager'] });
  client = testClient(env);
  await namespace('shared');
  // The defaults a site gets (protectedNamespaces not set), with the reconcilers that bind the
  // owner, admit traffic from other namespaces, copy Secrets and write outside the namespace.
  running = await runController(env, {
    namespace: {},
    rbac: { bindings: [{ name: 'namespaceAdmin', clusterRole: 'admin', owner: true }] },
    // Prometheus runs in `observability` here: the policies admit all of it into every Profile.
    'network-policies': { namespaces: { monitoring: 'observability' } },
    secrets: {
      sourceNamespace: 'shared-creds',
      copy: [{ selector: { 'kfx.dev/copy': 'true' } }],
    },
    templates: { inline: [{ name: 'shared.yaml', content: sharedTemplate }] },
  });
});

afterAll(async () => {
  await running?.stop();
  client.close();
  await env?.stop();
});

const namespace = (
  name: string,
  metadata: { annotations?: Record<string, string>; ownerReferences?: OwnerReference[] } = {},
) =>
  client.create(resources.namespaces, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, ...metadata },
  });

/** Refused as reserved, its namespace never made, its owner given nothing. */
async function reserved(name: string, because: string | RegExp): Promise<void> {
  const refused = await condition(
    client,
    name,
    (c) => c.reason === 'NamespaceReserved',
    'refused as reserved',
  );
  expect(refused.message).toMatch(because);
  expect(await read(client, 'namespaces', name)).toBeUndefined();
  expect(await allowed(client, MALLORY, 'get', 'pods', name)).toBe(false);
}

describe('a namespace the configuration names', () => {
  it('cannot be claimed: the network policies admit all traffic from a peer', async () => {
    await createProfile(client, 'observability', {}, { namespace: false, owner: MALLORY });
    await reserved(
      'observability',
      'namespace observability is reserved (network-policies: NetworkPolicy allow-prometheus names it as a peer); kfx changes nothing in it for a Profile',
    );
  });

  it('cannot be claimed as the Secrets’ source, and a tenant’s source is never copied', async () => {
    // Made before the configuration named it: a Profile's namespace, as the upstream
    // controller makes them, in which mallory is admin.
    const claimed = await createProfile(
      client,
      'shared-creds',
      {},
      { namespace: false, owner: MALLORY },
    );
    await namespace('shared-creds', {
      annotations: { owner: MALLORY },
      ownerReferences: [
        {
          apiVersion: 'kubeflow.org/v1',
          kind: 'Profile',
          name: 'shared-creds',
          uid: claimed.metadata?.uid ?? '',
        },
      ],
    });
    // Her Profile is refused (the namespace stays as it was, hers)...
    const refused = await condition(
      client,
      'shared-creds',
      (c) => c.reason === 'NamespaceReserved',
      'refused as reserved',
    );
    expect(refused.message).toContain('(secrets: the Secrets are copied from it)');
    // ...and what she puts in it is copied nowhere.
    await client.create(resources.secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'mlpipeline-minio-artifact',
        namespace: 'shared-creds',
        labels: { 'kfx.dev/copy': 'true' },
      },
      data: { accesskey: b64('MALLORY') },
    });
    await createProfile(client, 'team-v', {}, { namespace: false });
    await condition(client, 'team-v', (c) => c.reason === 'ReconcileFailed', 'the copy refused');
    const failed = await condition(client, 'team-v', () => true, 'a condition');
    expect(failed.message).toContain(
      'secrets: namespace shared-creds belongs to Profile shared-creds: kfx copies nothing from a tenant’s namespace',
    );
    expect(await read(client, 'secrets', 'mlpipeline-minio-artifact', 'team-v')).toBeUndefined();
  });
});

describe('a platform namespace that is installed later', () => {
  it.each([
    'monitoring',
    'kube',
    'argocd',
    'kfx-webhook',
    'gatekeeper-system',
    'local-path-storage',
  ])('cannot be claimed before it exists: %s', async (name) => {
    await createProfile(client, name, {}, { namespace: false, owner: MALLORY });
    await reserved(name, `namespace ${name} is reserved (protected namespaces: `);
  });
});

describe('an object outside the Profile’s namespace', () => {
  it('is not taken over because it carries kfx’s label, nor deleted with the Profile', async () => {
    await client.create(resources.configMaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'team-x-settings',
        namespace: 'shared',
        labels: { 'app.kubernetes.io/managed-by': 'kfx' },
      },
      data: { precious: 'yes' },
    });
    await createProfile(client, 'team-x', {}, { namespace: false, owner: MALLORY });
    const failed = await condition(
      client,
      'team-x',
      (c) => c.reason === 'ReconcileFailed',
      'the template refused',
    );
    expect(failed.message).toContain(
      'ConfigMap shared/team-x-settings already exists and kfx did not make it for Profile team-x: it is left alone',
    );
    await client.delete(resources.profiles, 'team-x');
    await eventually(
      client,
      'namespaces',
      'team-x',
      undefined,
      (ns) => ns === undefined || Boolean(ns.metadata?.deletionTimestamp),
      'team-x going',
    );
    const kept = await read<V1ConfigMap>(client, 'configMaps', 'team-x-settings', 'shared');
    expect(kept?.data).toEqual({ precious: 'yes' });
    expect(kept?.metadata?.ownerReferences).toBeUndefined();
  });
});

describe('adoption', () => {
  it('is for a User owner: a Group named in the annotation makes nobody admin', async () => {
    await namespace('legacy-group', {
      annotations: { [ADOPT_ANNOTATION]: 'system:authenticated' },
    });
    await client.create<Profile>(resources.profiles, {
      apiVersion: 'kubeflow.org/v1',
      kind: 'Profile',
      metadata: { name: 'legacy-group' },
      spec: { owner: { kind: 'Group', name: 'system:authenticated' } },
    });
    const refused = await condition(
      client,
      'legacy-group',
      (c) => c.reason === 'NamespaceNotOwned',
      'refused',
    );
    expect(refused.message).toContain(
      'only a Profile whose owner is a User adopts a namespace (this one is owned by Group system:authenticated)',
    );
    expect(await allowed(client, 'anyone@example.com', 'get', 'secrets', 'legacy-group')).toBe(
      false,
    );
    await waitFor(
      async () => {
        const ns = await read(client, 'namespaces', 'legacy-group');
        return ns?.metadata?.labels?.['app.kubernetes.io/managed-by'] === undefined
          ? { done: true, value: undefined }
          : { done: false, saw: 'managed by kfx' };
      },
      { description: 'namespace legacy-group left alone' },
    );
  });
});
