// Events on a real apiserver: what `kubectl describe` shows, repeats folded into one Event with
// a count, cluster-scoped objects' events in `default`, and a recorder that never throws. On the
// package's shared control plane, in a namespace of its own.
import { useSharedControlPlane, type SharedControlPlane } from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { KubeClient } from '../client/client.js';
import { EventRecorder } from './events.js';
import { resources, type KubeObject } from '../client/resources.js';
import { recordingLogger } from '../testing/fake-api.js';

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
let env: SharedControlPlane;
let client: KubeClient;
let ns: string;

beforeAll(async () => {
  env = await useSharedControlPlane(inject('kfxControlPlane'), 'events');
  ns = env.namespace;
  client = KubeClient.fromKubeConfig(env.kubeConfig, { logger });
});
afterAll(async () => {
  client.close();
  await env.release();
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
      metadata: { name: 'quotas', namespace: ns },
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

    const events = await eventsAbout(ns, 'quotas');
    expect(events).toHaveLength(2);
    const applied = events.find((e) => e.reason === 'QuotaApplied');
    expect(applied).toMatchObject({
      type: 'Normal',
      count: 3,
      message: event.message,
      involvedObject: {
        kind: 'ResourceQuota',
        name: 'quotas',
        namespace: ns,
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
    // Named after the file's namespace, so that no other file's Profile has its name.
    const profile = await client.create(resources.profiles, {
      apiVersion: 'kubeflow.org/v1',
      kind: 'Profile',
      metadata: { name: ns },
      spec: { owner: { kind: 'User', name: 'bob@example.com' } },
    });
    await new EventRecorder({ client, component: 'kfx-controller', logger }).record(profile, {
      type: 'Normal',
      reason: 'NamespaceCreated',
      message: `namespace ${ns} created`,
    });
    const [event] = await eventsAbout('default', ns);
    await client.delete(resources.profiles, ns);
    expect(event?.involvedObject).toMatchObject({
      kind: 'Profile',
      name: ns,
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
      metadata: { name: 'x', namespace: ns, uid: 'u' },
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
