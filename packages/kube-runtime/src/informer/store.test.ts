import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../client/resources.js';
import { Store } from './store.js';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

const cm = (
  namespace: string,
  name: string,
  owner?: string,
  data: Record<string, string> = {},
): ConfigMap => ({
  metadata: {
    namespace,
    name,
    ...(owner
      ? {
          ownerReferences: [
            { apiVersion: 'kubeflow.org/v1', kind: 'Profile', name: owner, uid: `uid-${owner}` },
          ],
        }
      : {}),
  },
  data,
});

const names = (objects: ConfigMap[]) => objects.map((o) => o.metadata?.name).sort();

describe('Store', () => {
  it('finds objects by key, namespace and owner uid', () => {
    const store = new Store<ConfigMap>();
    store.set(cm('team-a', 'quotas', 'team-a'));
    store.set(cm('team-a', 'proxy', 'team-a'));
    store.set(cm('team-b', 'quotas', 'team-b'));
    store.set(cm('team-b', 'unowned'));
    expect(store.get('team-a/quotas')?.metadata?.namespace).toBe('team-a');
    expect(store.size).toBe(4);
    expect(names(store.byIndex('namespace', 'team-b'))).toEqual(['quotas', 'unowned']);
    expect(names(store.byIndex('owner', 'uid-team-a'))).toEqual(['proxy', 'quotas']);
    expect(store.byIndex('owner', 'uid-nobody')).toEqual([]);
  });

  it('moves an object between index values when it changes, and forgets it when deleted', () => {
    const store = new Store<ConfigMap>({ env: (o) => Object.keys(o.data ?? {}) });
    store.set(cm('a', 'x', 'p1', { HTTP_PROXY: '1' }));
    expect(names(store.byIndex('env', 'HTTP_PROXY'))).toEqual(['x']);
    const previous = store.set(cm('a', 'x', 'p2', { NO_PROXY: '1' }));
    expect(previous?.data).toEqual({ HTTP_PROXY: '1' });
    expect(store.byIndex('env', 'HTTP_PROXY')).toEqual([]);
    expect(store.byIndex('owner', 'uid-p1')).toEqual([]);
    expect(names(store.byIndex('owner', 'uid-p2'))).toEqual(['x']);
    expect(store.delete('a/x')?.metadata?.name).toBe('x');
    expect(store.byIndex('env', 'NO_PROXY')).toEqual([]);
    expect(store.delete('a/x')).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it('keeps cluster-scoped objects under their name', () => {
    const store = new Store<KubeObject>();
    store.set({ metadata: { name: 'team-a' } });
    expect(store.keys()).toEqual(['team-a']);
    expect(store.byIndex('namespace', '')).toHaveLength(1);
  });

  it('survives an index function that throws, and names an unknown index', () => {
    const errors: string[] = [];
    const store = new Store<ConfigMap>(
      {
        broken: () => {
          throw new Error('bad indexer');
        },
      },
      (index, key) => errors.push(`${index} ${key}`),
    );
    store.set(cm('a', 'x'));
    expect(store.get('a/x')).toBeDefined();
    expect(store.byIndex('broken', 'anything')).toEqual([]);
    expect(errors).toEqual(['broken a/x']);
    expect(() => store.byIndex('nope', 'x')).toThrow(
      'no index named "nope" (indexes: namespace, owner, broken)',
    );
  });
});

describe('Store indexes', () => {
  it('keep one, two and three objects under a value, and forget them one by one', () => {
    const store = new Store<ConfigMap>();
    for (const name of ['a', 'b', 'c']) store.set(cm('team-a', name, 'team-a'));
    expect(names(store.byIndex('owner', 'uid-team-a'))).toEqual(['a', 'b', 'c']);
    store.delete('team-a/b');
    expect(names(store.byIndex('owner', 'uid-team-a'))).toEqual(['a', 'c']);
    store.delete('team-a/a');
    expect(names(store.byIndex('owner', 'uid-team-a'))).toEqual(['c']);
    store.set(cm('team-a', 'c', 'team-b'));
    expect(store.byIndex('owner', 'uid-team-a')).toEqual([]);
    expect(names(store.byIndex('owner', 'uid-team-b'))).toEqual(['c']);
  });

  it('keep only the built-in indexes asked for', () => {
    const store = new Store<ConfigMap>({}, undefined, ['owner']);
    store.set(cm('team-a', 'quotas', 'team-a'));
    expect(names(store.byIndex('owner', 'uid-team-a'))).toEqual(['quotas']);
    expect(() => store.byIndex('namespace', 'team-a')).toThrow('no index named "namespace"');
  });
});
