import type { KubeObject } from '@kfx/kube-runtime/client';
import type { Informer } from '@kfx/kube-runtime/informer';
import { describe, expect, it } from 'vitest';
import type { Profile } from '../profile.js';
import { Echoes } from './echoes.js';
import type { OwnedKinds } from './owned-kinds.js';
import type { ReadKinds } from './read-kinds.js';
import { wireTriggers } from './triggers.js';

type Handler = (object: KubeObject, old?: KubeObject) => void;

/** An informer's events and store, without a watch behind them. */
function fakeInformer(objects: KubeObject[] = []) {
  const handlers = new Map<string, Handler[]>();
  const byKey = new Map(objects.map((o) => [o.metadata?.name ?? '', o]));
  const informer = {
    on(event: string, handler: Handler) {
      handlers.set(event, [...(handlers.get(event) ?? []), handler]);
      return () => undefined;
    },
    store: { get: (key: string) => byKey.get(key), keys: () => [...byKey.keys()] },
  };
  const emit = (event: string, object: KubeObject, old?: KubeObject) => {
    for (const handler of handlers.get(event) ?? []) handler(object, old);
  };
  return { informer: informer as unknown as Informer<KubeObject>, emit };
}

const secret = (name: string, labels: Record<string, string> = {}, value = 'a'): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: 'kubeflow', labels, resourceVersion: value },
    data: { key: value },
  }) as KubeObject;

describe('triggers of what reconcilers read', () => {
  const profiles = fakeInformer([
    { metadata: { name: 'team-a' } },
    { metadata: { name: 'team-b' } },
  ] as Profile[]);
  const sources = fakeInformer();
  const roleBindings = fakeInformer();
  const copied = (object: KubeObject) =>
    object.metadata?.name === 'artifact-store' || object.metadata?.labels?.copy === 'yes';
  const queued: string[] = [];
  wireTriggers(
    {
      profiles: profiles.informer,
      namespaces: fakeInformer().informer,
      kinds: { byKey: new Map() } as unknown as OwnedKinds,
      reads: {
        kinds: [
          { namespace: 'kubeflow', informer: sources.informer, concerns: copied },
          { namespace: undefined, informer: roleBindings.informer, concerns: () => true },
        ],
      } as unknown as ReadKinds,
      echoes: new Echoes(),
    },
    { enqueue: (name) => queued.push(name), deleted: () => undefined },
  );
  const drain = () => queued.splice(0).sort();

  it('reconcile every Profile when a source they read changes, and none for other objects there', () => {
    sources.emit('add', secret('unrelated'));
    sources.emit('update', secret('unrelated', {}, 'b'), secret('unrelated'));
    sources.emit('delete', secret('unrelated'));
    expect(drain()).toEqual([]);
    sources.emit('update', secret('artifact-store', {}, 'b'), secret('artifact-store'));
    expect(drain()).toEqual(['team-a', 'team-b']);
    // Leaving a selector counts too: its copies must go.
    sources.emit('update', secret('regcred', {}, 'b'), secret('regcred', { copy: 'yes' }));
    expect(drain()).toEqual(['team-a', 'team-b']);
  });

  it('reconcile the Profile whose namespace holds an object read there', () => {
    const binding = { metadata: { name: 'rb', namespace: 'team-b' } };
    roleBindings.emit('add', binding);
    roleBindings.emit('add', { metadata: { name: 'rb', namespace: 'not-a-profile' } });
    expect(drain()).toEqual(['team-b']);
    // A resync (the same object) is no change.
    roleBindings.emit('update', binding, binding);
    expect(drain()).toEqual([]);
  });
});

describe('triggers of the objects kfx makes', () => {
  const profiles = fakeInformer([
    { metadata: { name: 'team-a', uid: 'uid-a' } },
    { metadata: { name: 'team-b', uid: 'uid-b' } },
  ] as Profile[]);
  const policies = fakeInformer();
  const ref = {
    group: 'networking.k8s.io',
    version: 'v1',
    resource: 'networkpolicies',
    kind: 'NetworkPolicy',
    namespaced: true,
  };
  const queued: string[] = [];
  wireTriggers(
    {
      profiles: profiles.informer,
      namespaces: fakeInformer().informer,
      kinds: {
        byKey: new Map([['np', { ref, informer: policies.informer }]]),
      } as unknown as OwnedKinds,
      reads: { kinds: [] } as unknown as ReadKinds,
      echoes: new Echoes(),
    },
    { enqueue: (name) => queued.push(name), deleted: () => undefined },
  );
  const drain = () => [...new Set(queued.splice(0))].sort();
  const policy = (owner: string, resourceVersion: string): KubeObject => ({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: {
      name: 'default-deny',
      namespace: 'team-a',
      resourceVersion,
      ownerReferences: [
        { apiVersion: 'kubeflow.org/v1', kind: 'Profile', name: owner, uid: `uid-${owner}` },
      ],
    },
  });

  it('reconcile the Profile an object stopped naming, and the one of its namespace', () => {
    // A tenant points team-a's policy at team-b: both are reconciled, team-a to take it back.
    policies.emit('update', policy('team-b', '2'), policy('team-a', '1'));
    expect(drain()).toEqual(['team-a', 'team-b']);
    // Deleted while it named team-b: team-a, whose namespace held it, makes it again.
    policies.emit('delete', policy('team-b', '2'));
    expect(drain()).toEqual(['team-a', 'team-b']);
  });
});
