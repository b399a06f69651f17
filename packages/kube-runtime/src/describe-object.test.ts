import { describe, expect, it } from 'vitest';
import { describeObject } from './describe-object.js';

describe('describeObject', () => {
  it('names namespaced, cluster-scoped, generated and unnamed objects', () => {
    expect(describeObject('ConfigMap', { namespace: 'team-a', name: 'proxy' })).toBe(
      'ConfigMap team-a/proxy',
    );
    expect(describeObject('Namespace', { name: 'team-a' })).toBe('Namespace team-a');
    expect(describeObject('Pod', { namespace: 'team-a', generateName: 'trainer-' })).toBe(
      'Pod team-a/trainer-*',
    );
    expect(describeObject('Pod')).toBe('Pod (unnamed)');
  });
});
