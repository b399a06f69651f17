// Two controllers with disjoint profileSelectors on one control plane (a canary beside the
// main release, or two shards): each converges its own Profiles and never touches the other's
// objects, status or Events, and each counts only its own. A Profile relabelled out of a
// selector keeps everything it has and is left alone from then on; relabelled back in, it is
// reconciled again.
// On the package's shared plane: the selectors also keep both controllers to this file's Profiles.
import { resources, type KubeClient, type KubeObject } from '@kfx/kube-runtime/client';
import { useSharedControlPlane, waitFor, type SharedControlPlane } from '@kfx/testenv';
import type { V1ResourceQuota } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  condition,
  createProfile,
  eventMessages,
  eventually,
  fileProfiles,
  profileEvents,
  read,
  runController,
  testClient,
  type FileProfiles,
  type Running,
} from '../testing/harness.js';

let env: SharedControlPlane | undefined;
let client: KubeClient;
let file: FileProfiles;
let shardA: Running | undefined;
let shardB: Running | undefined;
const names = { a1: '', a2: '', b1: '' };

const SHARD = 'kfx.dev/shard';
// Every Profile carries a label its quota ignores, so that each gets a Warning Event.
const BAD_QUOTA = { 'quotas.kfx.dev/limits.cpu': 'lots' };

beforeAll(async () => {
  env = await useSharedControlPlane(inject('kfxControlPlane'), 'profile-selector');
  client = testClient(env);
  file = fileProfiles(env);
  names.a1 = file.name('a1');
  names.a2 = file.name('a2');
  names.b1 = file.name('b1');
  // Different settings, field managers and reconcilers, so that every write tells who made it.
  shardA = await runController(
    env,
    { quotas: { defaults: { 'requests.cpu': '1' } }, limitrange: {} },
    {
      fieldManager: 'kfx-shard-a',
      profileSelector: { matchLabels: { ...file.labels, [SHARD]: 'a' } },
    },
  );
  shardB = await runController(
    env,
    { quotas: { defaults: { 'requests.cpu': '2' } } },
    {
      fieldManager: 'kfx-shard-b',
      profileSelector: {
        matchLabels: file.labels,
        matchExpressions: [{ key: SHARD, operator: 'In', values: ['b'] }],
      },
    },
  );
  for (const [name, shard] of [
    [names.a1, 'a'],
    [names.a2, 'a'],
    [names.b1, 'b'],
  ] as const) {
    await createProfile(client, name, { ...file.labels, ...BAD_QUOTA, [SHARD]: shard });
  }
});

afterAll(async () => {
  await shardA?.stop();
  await shardB?.stop();
  for (const name of Object.values(names)) {
    if (name) await client.delete(resources.profiles, name).catch(() => undefined);
  }
  client.close();
  await env?.release();
});

const cpu = (q: KubeObject | undefined) =>
  (q as V1ResourceQuota | undefined)?.spec?.hard?.['requests.cpu'];
/** The kfx field managers that wrote the object (kube-controller-manager writes quota status). */
const managers = (object: KubeObject | undefined) =>
  (object?.metadata?.managedFields ?? [])
    .map((f) => f.manager)
    .filter((manager) => manager?.startsWith('kfx-'));
/** A Profile's Events as they read (a repeated one counts up rather than adding an Event). */
const eventsOf = async (name: string) =>
  (await profileEvents(client, name))
    .map((e) => `${e.reason ?? ''} ${e.message ?? ''} ×${e.count ?? 1}`)
    .sort();
const relabel = (name: string, shard: string) =>
  client.patch(resources.profiles, name, { metadata: { labels: { [SHARD]: shard } } });

/** The controller's kfx_profile_controller_profiles, summed over states. */
async function profilesCounted(registry: Registry): Promise<number> {
  const metric = registry.getSingleMetric('kfx_profile_controller_profiles');
  const { values } = (await metric?.get()) ?? { values: [] };
  return values.reduce((sum, v) => sum + v.value, 0);
}

async function waitCounted(registry: Registry, expected: number, who: string): Promise<void> {
  await waitFor(
    async () => {
      const counted = await profilesCounted(registry);
      return counted === expected
        ? { done: true, value: undefined }
        : { done: false, saw: `${counted} Profiles counted` };
    },
    { description: `${who} to count ${expected} Profiles`, timeoutMs: 30_000 },
  );
}

describe('two controllers with disjoint selectors', () => {
  it('each converge their own Profiles, with their own settings and status', async () => {
    for (const name of [names.a1, names.a2]) {
      await eventually(client, 'resourceQuotas', 'quotas', name, (q) => cpu(q) === '1', 'cpu 1');
      const c = await condition(client, name, (x) => x.reason === 'ReconciledWithWarnings', 'ok');
      expect(c.message).toMatch(/^ReconciledWithWarnings: applied: quotas, limitrange\. ignored: /);
    }
    await eventually(client, 'resourceQuotas', 'quotas', names.b1, (q) => cpu(q) === '2', 'cpu 2');
    const c = await condition(client, names.b1, (x) => x.reason === 'ReconciledWithWarnings', 'ok');
    expect(c.message).toMatch(/^ReconciledWithWarnings: applied: quotas\. ignored: /);
  });

  it("never touch the other's objects, status or Events, and count only their own", async () => {
    // Each Profile's Warning Event came, from its own controller only.
    for (const name of Object.values(names)) {
      await eventMessages(client, name, 'InvalidLabel', /limits\.cpu="lots"/);
    }
    const sources = async (name: string) =>
      new Set((await profileEvents(client, name)).map((e) => e.source?.component));
    expect(await sources(names.a1)).toEqual(new Set(['kfx-shard-a']));
    expect(await sources(names.a2)).toEqual(new Set(['kfx-shard-a']));
    expect(await sources(names.b1)).toEqual(new Set(['kfx-shard-b']));

    // Objects: written by their own controller's field manager, never by the other's.
    for (const name of [names.a1, names.a2]) {
      expect(managers(await read(client, 'resourceQuotas', 'quotas', name))).toEqual([
        'kfx-shard-a',
      ]);
      expect(await read(client, 'limitRanges', 'default-container-limits', name)).toBeDefined();
    }
    expect(managers(await read(client, 'resourceQuotas', 'quotas', names.b1))).toEqual([
      'kfx-shard-b',
    ]);
    // Shard A makes LimitRanges; it made none for shard B's Profile.
    expect(await read(client, 'limitRanges', 'default-container-limits', names.b1)).toBeUndefined();

    if (!shardA || !shardB) throw new Error('not started');
    await waitCounted(shardA.client.registry, 2, 'shard A');
    await waitCounted(shardB.client.registry, 1, 'shard B');
    expect([...shardA.controller.profiles.store.keys()].sort()).toEqual([names.a1, names.a2]);
    expect([...shardB.controller.profiles.store.keys()]).toEqual([names.b1]);
  });
});

describe('a Profile relabelled out of its selector', () => {
  it('keeps every object and its status, and is left alone from then on', async () => {
    if (!shardA) throw new Error('not started');
    const quota = await read(client, 'resourceQuotas', 'quotas', names.a2);
    const limits = await read(client, 'limitRanges', 'default-container-limits', names.a2);
    const before = await condition(client, names.a2, () => true, 'a condition');
    const eventsBefore = await eventsOf(names.a2);
    await relabel(names.a2, 'none');
    // Shard A has let go of it: it no longer counts it.
    await waitCounted(shardA.client.registry, 1, 'shard A');

    // What shard A would repair at once, were it still its Profile: a deleted quota.
    await client.delete(resources.resourceQuotas, 'quotas', { namespace: names.a2 });
    // A barrier: the same repair on a Profile it still has, requested after, is done.
    const a1Quota = await read(client, 'resourceQuotas', 'quotas', names.a1);
    await client.delete(resources.resourceQuotas, 'quotas', { namespace: names.a1 });
    await eventually(
      client,
      'resourceQuotas',
      'quotas',
      names.a1,
      (q) => q !== undefined && q.metadata?.uid !== a1Quota?.metadata?.uid,
      'the repaired quota of the Profile still selected',
    );
    await eventMessages(client, names.a1, 'Created', /created ResourceQuota/);

    expect(await read(client, 'resourceQuotas', 'quotas', names.a2)).toBeUndefined();
    const kept = await read(client, 'limitRanges', 'default-container-limits', names.a2);
    expect(kept?.metadata?.uid).toBe(limits?.metadata?.uid);
    expect(kept?.metadata?.resourceVersion).toBe(limits?.metadata?.resourceVersion);
    expect(quota).toBeDefined();
    const after = await condition(client, names.a2, () => true, 'a condition');
    expect(after).toEqual(before);
    expect(await eventsOf(names.a2)).toEqual(eventsBefore);
  });

  it('is reconciled again when relabelled back in', async () => {
    await relabel(names.a2, 'a');
    await eventually(
      client,
      'resourceQuotas',
      'quotas',
      names.a2,
      (q) => cpu(q) === '1',
      'the quota made again',
    );
    if (!shardA) throw new Error('not started');
    await waitCounted(shardA.client.registry, 2, 'shard A');
  });
});
