import { describe, expect, it } from 'vitest';
import { dataSourceOf, holds } from './movable.js';
import { matchRule, type ClaimSpec, type RewriteRule } from './rules.js';

const RWX = ['ReadWriteMany'];
const toNfs: RewriteRule = { accessModes: RWX, storageClassName: 'nfs-client' };

const clone = { kind: 'PersistentVolumeClaim', name: 'data' };
const snapshot = { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'nightly' };
const populator = { apiGroup: 'hello.example.com', kind: 'Hello', name: 'greeting' };

const rwx = (more: Partial<ClaimSpec> = {}): ClaimSpec => ({
  accessModes: RWX,
  storageClassName: 'vsphere-csi',
  ...more,
});

describe('claims another class cannot serve', () => {
  it('says what the data source is, from either field', () => {
    expect(dataSourceOf({ dataSource: clone })).toBe(
      'a clone of PersistentVolumeClaim data (spec.dataSource)',
    );
    expect(dataSourceOf({ dataSourceRef: snapshot })).toBe(
      'restored from VolumeSnapshot nightly (spec.dataSourceRef)',
    );
    expect(dataSourceOf({ dataSourceRef: { ...populator, namespace: 'shared' } })).toBe(
      'filled from Hello.hello.example.com shared/greeting (spec.dataSourceRef)',
    );
    // Both written: the older field is named.
    expect(dataSourceOf({ dataSource: clone, dataSourceRef: clone })).toContain('spec.dataSource)');
    expect(dataSourceOf({})).toBeUndefined();
    expect(dataSourceOf({ dataSource: null })).toBeUndefined();
  });

  it('by default holds back clones, snapshot restores, populated and block claims', () => {
    const reasons = (spec: ClaimSpec) =>
      holds(toNfs, spec, 'pvcRewriter.rules[0]').map((hold) => hold.reason);
    expect(reasons(rwx({ dataSource: clone }))).toEqual(['data-source']);
    expect(reasons(rwx({ dataSourceRef: snapshot }))).toEqual(['data-source']);
    expect(reasons(rwx({ dataSourceRef: populator }))).toEqual(['data-source']);
    expect(reasons(rwx({ volumeMode: 'Block' }))).toEqual(['volume-mode']);
    expect(reasons(rwx({ volumeMode: 'Block', dataSource: clone }))).toEqual([
      'data-source',
      'volume-mode',
    ]);
    expect(reasons(rwx({ volumeMode: 'Filesystem' }))).toEqual([]);
    expect(reasons(rwx())).toEqual([]); // no volumeMode is Filesystem
  });

  it('says which key moves them anyway', () => {
    expect(holds(toNfs, rwx({ volumeMode: 'Block' }), 'pvcRewriter.rules[3]')).toEqual([
      {
        reason: 'volume-mode',
        what: 'it asks for volumeMode Block',
        fix: 'add Block to pvcRewriter.rules[3].volumeModes',
      },
    ]);
  });

  it('lets a rule that opts in move them', () => {
    const takesAll: RewriteRule = {
      ...toNfs,
      dataSource: 'rewrite',
      volumeModes: ['Filesystem', 'Block'],
    };
    expect(holds(takesAll, rwx({ dataSource: clone, volumeMode: 'Block' }), 'r')).toEqual([]);
    const blockOnly: RewriteRule = { ...toNfs, volumeModes: ['Block'] };
    expect(holds(blockOnly, rwx(), 'r').map((hold) => hold.what)).toEqual([
      'it asks for volumeMode Filesystem',
    ]);
  });
});

describe('matching rules with claims another class cannot serve', () => {
  it('does not match a rule that must skip the claim, and reports the skip', () => {
    const result = matchRule(rwx({ dataSource: clone }), [toNfs]);
    expect(result.match).toBeUndefined();
    expect(result.skipped).toEqual([
      { index: 0, holds: [expect.objectContaining({ reason: 'data-source' })] },
    ]);
  });

  it('lets a later rule that takes such claims match them', () => {
    const sameDriver: RewriteRule = {
      accessModes: RWX,
      dataSource: 'rewrite',
      volumeModes: ['Filesystem', 'Block'],
      storageClassName: 'vsphere-csi-rwx',
    };
    const result = matchRule(rwx({ dataSource: clone, volumeMode: 'Block' }), [toNfs, sameDriver]);
    expect(result.match?.index).toBe(1);
    expect(result.skipped.map((skip) => skip.index)).toEqual([0]);
  });

  it('reports no skip for claims no rule would have moved anyway', () => {
    const rwo = {
      ...rwx({ volumeMode: 'Block', dataSource: clone }),
      accessModes: ['ReadWriteOnce'],
    };
    expect(matchRule(rwo, [toNfs])).toEqual({ undecided: [], skipped: [] });
    const elsewhere: RewriteRule = { ...toNfs, fromStorageClassNames: ['legacy-nfs'] };
    expect(matchRule(rwx({ volumeMode: 'Block' }), [elsewhere]).skipped).toEqual([]);
  });

  it('matches a claim already on the target class, so that nothing is reported twice', () => {
    const result = matchRule(rwx({ storageClassName: 'nfs-client', dataSource: clone }), [toNfs]);
    expect(result.match?.index).toBe(0);
    expect(result.skipped).toEqual([]);
  });
});
