import { describe, expect, it } from 'vitest';
import { apiVersionOf, parseApiVersion, resourcePath, resources } from './resources.js';

describe('resourcePath', () => {
  it('builds core, grouped, namespaced and cluster-scoped paths', () => {
    expect(resourcePath(resources.pods)).toBe('/api/v1/pods');
    expect(resourcePath(resources.pods, { namespace: 'team-a' })).toBe(
      '/api/v1/namespaces/team-a/pods',
    );
    expect(
      resourcePath(resources.pods, { namespace: 'team-a', name: 'p', subresource: 'log' }),
    ).toBe('/api/v1/namespaces/team-a/pods/p/log');
    expect(resourcePath(resources.profiles, { name: 'team-a' })).toBe(
      '/apis/kubeflow.org/v1/profiles/team-a',
    );
    expect(resourcePath(resources.leases, { namespace: 'kfx', name: 'kfx-controller' })).toBe(
      '/apis/coordination.k8s.io/v1/namespaces/kfx/leases/kfx-controller',
    );
  });

  it('escapes names', () => {
    expect(resourcePath(resources.configMaps, { namespace: 'a', name: 'x/y' })).toBe(
      '/api/v1/namespaces/a/configmaps/x%2Fy',
    );
  });

  it('refuses a namespace for cluster-scoped kinds and a missing one for namespaced objects', () => {
    expect(() => resourcePath(resources.profiles, { namespace: 'a', name: 'b' })).toThrow(
      /profiles are cluster-scoped/,
    );
    expect(() => resourcePath(resources.pods, { name: 'p' })).toThrow(
      /pods "p": a namespace is required/,
    );
    expect(() => resourcePath(resources.pods, { namespace: 'a', name: '' })).toThrow(
      /name is empty/,
    );
  });
});

describe('apiVersion', () => {
  it('splits and joins group and version', () => {
    expect(parseApiVersion('v1')).toEqual({ group: '', version: 'v1' });
    expect(parseApiVersion('kubeflow.org/v1')).toEqual({ group: 'kubeflow.org', version: 'v1' });
    expect(apiVersionOf(resources.jobs)).toBe('batch/v1');
    expect(apiVersionOf(resources.configMaps)).toBe('v1');
  });
});
