import { describe, expect, it } from 'vitest';
import { findRule, UNSET_STORAGE_CLASS, type RewriteRule } from './rules.js';

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
