import { describe, expect, it } from 'vitest';
import {
  DEFAULT_STORAGE_CLASS,
  findRule,
  matchRule,
  UNSET_STORAGE_CLASS,
  type RewriteRule,
} from './rules.js';

const toNfs: RewriteRule = { accessModes: ['ReadWriteMany'], storageClassName: 'nfs-client' };
const fromDefaultOnly: RewriteRule = {
  accessModes: ['ReadWriteMany'],
  fromStorageClassNames: [UNSET_STORAGE_CLASS, 'vsphere-csi'],
  storageClassName: 'nfs-client',
};

describe('findRule', () => {
  it('matches a ReadWriteMany claim whatever its class when the rule names none', () => {
    expect(findRule({ accessModes: ['ReadWriteMany'], storageClassName: 'x' }, [toNfs])).toBe(
      toNfs,
    );
    expect(findRule({ accessModes: ['ReadWriteMany'] }, [toNfs])).toBe(toNfs);
  });

  it('does not match ReadWriteOnce claims or claims without accessModes', () => {
    expect(findRule({ accessModes: ['ReadWriteOnce'] }, [toNfs])).toBeUndefined();
    expect(findRule({}, [toNfs])).toBeUndefined();
  });

  it('limits a rule to the listed classes, with <unset> standing for no class', () => {
    expect(findRule({ accessModes: ['ReadWriteMany'] }, [fromDefaultOnly])).toBe(fromDefaultOnly);
    expect(
      findRule({ accessModes: ['ReadWriteMany'], storageClassName: 'fast' }, [fromDefaultOnly]),
    ).toBeUndefined();
  });

  it('takes the first matching rule', () => {
    const second: RewriteRule = { ...toNfs, storageClassName: 'other' };
    expect(findRule({ accessModes: ['ReadWriteMany'] }, [toNfs, second])).toBe(toNfs);
  });
});

describe('<default> in fromStorageClassNames', () => {
  const fromDefault: RewriteRule = {
    accessModes: ['ReadWriteMany'],
    fromStorageClassNames: [UNSET_STORAGE_CLASS, DEFAULT_STORAGE_CLASS],
    storageClassName: 'nfs-client',
  };
  const rwx = (storageClassName?: string) => ({
    accessModes: ['ReadWriteMany'],
    ...(storageClassName ? { storageClassName } : {}),
  });

  it('matches the class the cluster marks as default (what an unset claim arrives with)', () => {
    const facts = { defaultStorageClasses: new Set(['vsphere-csi']) };
    expect(findRule(rwx('vsphere-csi'), [fromDefault], facts)).toBe(fromDefault);
    expect(findRule(rwx(), [fromDefault], facts)).toBe(fromDefault);
    expect(findRule(rwx('fast'), [fromDefault], facts)).toBeUndefined();
  });

  it('cannot decide without knowing the default class, and says so', () => {
    expect(matchRule(rwx('vsphere-csi'), [fromDefault])).toEqual({
      undecided: [{ index: 0, why: 'the default StorageClass is not known' }],
      skipped: [],
    });
    // A claim the list names anyway needs no knowledge of the default.
    expect(matchRule(rwx(), [fromDefault]).match?.index).toBe(0);
  });
});
