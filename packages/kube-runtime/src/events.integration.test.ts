// Events on a real apiserver: what `kubectl describe` shows, repeats folded into one Event with
// a count, cluster-scoped objects' events in `default`, and a recorder that never throws.
import { startControlPlane, type ControlPlane } from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from './client.js';
import { EventRecorder } from './events.js';
import { resources, type KubeObject } from './resources.js';
import { recordingLogger } from './testing/fake-api.js';

interface Event extends KubeObject {
  involvedObject: { kind?: string; name?: string; namespace?: string; uid?: string };
  reason: string;
  message: string;
  type: string;
  count: number;
  firstTimestamp: string;
  lastTimestamp: string;
  source: { component?: string };
}

const { logger, records } = recordingLogger();
let env: ControlPlane;
let client: KubeClient;

beforeAll(async () => {
  env = await startControlPlane();
  client = KubeClient.fromKubeConfig(env.kubeConfig, { logger });
  await client.create(resources.namespaces, { metadata: { name: 'team-a' } });
});
afterAll(async () => {
  client.close();
  await env.stop();
});

const eventsAbout = async (namespace: string, name: string) =>
  (
    await client.list<Event>(resources.events, {
      namespace,
      fieldSelector: `involvedObject.name=${name}`,
    })
  ).items;

describe('EventRecorder', () => {
  it('writes an Event about the object, and folds repeats into one with a count', async () => {
    const quota = await client.create(resources.resourceQuotas, {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'quotas', namespace: 'team-a' },
      spec: { hard: { cpu: '1' } },
    });
    const recorder = new EventRecorder({ client, component: 'kfx-controller', logger });
    const event = {
      type: 'Normal' as const,
      reason: 'QuotaApplied',
      message: 'cpu 1 from label quotas.statcan.gc.ca/cpu',
    };
    await recorder.record(quota, event);
    await recorder.record(quota, event);
    await recorder.record(quota, event);
    await recorder.record(quota, {
      type: 'Warning',
      reason: 'BadLabel',
      message: 'quotas.statcan.gc.ca/memory: "lots" is not a quantity',
    });

    const events = await eventsAbout('team-a', 'quotas');
    expect(events).toHaveLength(2);
    const applied = events.find((e) => e.reason === 'QuotaApplied');
    expect(applied).toMatchObject({
      type: 'Normal',
      count: 3,
      message: event.message,
      involvedObject: {
        kind: 'ResourceQuota',
        name: 'quotas',
        namespace: 'team-a',
        uid: quota.metadata.uid,
      },
      source: { component: 'kfx-controller' },
    });
    expect(Date.parse(applied?.lastTimestamp ?? '')).toBeGreaterThanOrEqual(
      Date.parse(applied?.firstTimestamp ?? ''),
    );
    expect(events.find((e) => e.reason === 'BadLabel')?.type).toBe('Warning');
  });

  it('puts events about cluster-scoped objects in the default namespace', async () => {
    const profile = await client.create(resources.profiles, {
      apiVersion: 'kubeflow.org/v1',
      kind: 'Profile',
      metadata: { name: 'team-b' },
      spec: { owner: { kind: 'User', name: 'bob@example.com' } },
    });
    await new EventRecorder({ client, component: 'kfx-controller', logger }).record(profile, {
      type: 'Normal',
      reason: 'NamespaceCreated',
      message: 'namespace team-b created',
    });
    const [event] = await eventsAbout('default', 'team-b');
    expect(event?.involvedObject).toMatchObject({
      kind: 'Profile',
      name: 'team-b',
      uid: profile.metadata.uid,
    });
    expect(event?.involvedObject.namespace).toBeUndefined();
  });

  it('never throws: a denied write and bad input are logged', async () => {
    const { kubeConfig } = env.userKubeconfig('no-events');
    const denied = KubeClient.fromKubeConfig(kubeConfig, { logger });
    const recorder = new EventRecorder({ client: denied, component: 'kfx-controller', logger });
    const object = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x', namespace: 'team-a', uid: 'u' },
    };
    await expect(
      recorder.record(object, { type: 'Normal', reason: 'Test', message: 'm' }),
    ).resolves.toBeUndefined();
    expect(
      records.some(
        (r) =>
          r.msg === 'event not recorded' &&
          String((r.err as { message?: string }).message).includes('403 Forbidden'),
      ),
    ).toBe(true);
    await expect(
      recorder.record(
        { metadata: { name: 'no-kind' } },
        { type: 'Normal', reason: 'R', message: 'm' },
      ),
    ).resolves.toBeUndefined();
    expect(
      records.some((r) => String(r.msg).startsWith('event not recorded: the object needs kind')),
    ).toBe(true);
    denied.close();
  });
});
