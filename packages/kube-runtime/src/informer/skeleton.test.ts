import { describe, expect, it } from 'vitest';
import { metadataSkeleton } from './skeleton.js';

describe('metadataSkeleton', () => {
  it('keeps the identity and the named metadata, drops everything else', () => {
    const skeleton = metadataSkeleton({ annotations: ['a'], labels: ['l'], ownerReferences: true });
    const owner = { apiVersion: 'v1', kind: 'X', name: 'x', uid: 'u' };
    expect(
      skeleton({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: 'p',
          namespace: 'ns',
          uid: '1',
          resourceVersion: '7',
          annotations: { a: '1', b: '2' },
          labels: { l: 'x', m: 'y' },
          ownerReferences: [owner],
          managedFields: [{ manager: 'm' }],
        },
        spec: { containers: [] },
      } as never),
    ).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'p',
        namespace: 'ns',
        uid: '1',
        resourceVersion: '7',
        deletionTimestamp: undefined,
        annotations: { a: '1' },
        labels: { l: 'x' },
        ownerReferences: [owner],
      },
    });
  });

  it('leaves out what it was not asked to keep', () => {
    const bare = metadataSkeleton()({ metadata: { name: 'n', annotations: { a: '1' } } });
    expect(bare.metadata).not.toHaveProperty('annotations');
    expect(bare.metadata).not.toHaveProperty('ownerReferences');
  });
});
