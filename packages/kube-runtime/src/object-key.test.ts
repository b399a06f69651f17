import { describe, expect, it } from 'vitest';
import { objectKey, parseObjectKey } from './object-key.js';

describe('object keys', () => {
  it('round-trips namespaced and cluster-scoped objects', () => {
    const pod = { metadata: { namespace: 'team-a', name: 'trainer-0' } };
    const profile = { metadata: { name: 'team-a' } };
    expect(parseObjectKey(objectKey(pod))).toEqual({ namespace: 'team-a', name: 'trainer-0' });
    expect(parseObjectKey(objectKey(profile))).toEqual({ name: 'team-a' });
  });

  it('refuses objects without a name and malformed keys', () => {
    expect(() => objectKey({ metadata: {} })).toThrow(/no metadata.name/);
    expect(() => parseObjectKey('a/b/c')).toThrow(/not "name" or "namespace\/name"/);
    expect(() => parseObjectKey('/b')).toThrow();
  });
});
