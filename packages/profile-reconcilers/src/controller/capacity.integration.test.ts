// A controller with more Profiles than its memory holds reconciles the oldest it can and lets the
// others wait with a condition that says why (not an out-of-memory loop that reconciles none),
// and gives a freed place to a waiting Profile. maxProfiles is set low here instead of filling a
// heap. On the package's shared plane: the controller selects this file's Profiles only.
import { resources, type KubeClient } from '@kfx/kube-runtime/client';
import { useSharedControlPlane, type SharedControlPlane } from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  condition,
  counterTotal,
  createProfile,
  eventually,
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
let file: FileProfiles;
const names: string[] = [];

beforeAll(async () => {
  env = await useSharedControlPlane(inject('kfxControlPlane'), 'capacity');
  client = testClient(env);
  file = fileProfiles(env);
  running = await runController(
    env,
    { quotas: {} },
    { profileSelector: file.selector, maxProfiles: 2 },
  );
});

afterAll(async () => {
  await running?.stop();
  for (const name of names) await client.delete(resources.profiles, name).catch(() => undefined);
  client.close();
  await env?.release();
});

describe('more Profiles than the controller holds', () => {
  it('reconciles the oldest, lets the newest wait saying why, and fills a freed place', async () => {
    if (!running) throw new Error('no controller');
    for (const suffix of ['a', 'b', 'c']) {
      names.push(file.name(suffix));
      await createProfile(client, file.name(suffix), file.labels);
    }
    const [first, second, third] = names as [string, string, string];
    for (const name of [first, second]) {
      await condition(client, name, (c) => c.reason === 'Reconciled', 'reconciled');
    }
    const waiting = await condition(client, third, (c) => c.reason === 'ControllerFull', 'waiting');
    expect(waiting.status).toBe('False');
    expect(waiting.message).toContain('kfx-controller reconciles at most 2 Profiles');
    expect(await read(client, 'resourceQuotas', 'quotas', third)).toBeUndefined();
    const registry = running.client.registry;
    expect(await counterTotal(registry, 'kfx_profile_controller_capacity_profiles')).toBe(2);
    expect(
      await counterTotal(registry, 'kfx_profile_controller_profiles', (l) => l.state === 'waiting'),
    ).toBe(1);

    await client.delete(resources.profiles, first);
    await condition(client, third, (c) => c.reason === 'Reconciled', 'reconciled once room freed');
    await eventually(
      client,
      'resourceQuotas',
      'quotas',
      third,
      (q) => q !== undefined,
      'its quota',
    );
  });
});
