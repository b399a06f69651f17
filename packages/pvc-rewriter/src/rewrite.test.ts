import { describe, expect, it } from 'vitest';
import { rewriteClaim } from './rewrite.js';
import type { RewriteRule } from './rules.js';
import { claim } from './testing/claims.js';

const rules: RewriteRule[] = [
  {
    accessModes: ['ReadWriteMany'],
    namespaceSelector: { matchExpressions: [{ key: 'storage', operator: 'In', values: ['nfs'] }] },
    storageClassName: 'nfs-client',
  },
];

describe('rewriteClaim', () => {
  it('applies a namespaceSelector rule only in matching namespaces', () => {
    const inNfs = claim({ accessModes: ['ReadWriteMany'] });
    expect(rewriteClaim(inNfs, rules, { namespace: { labels: { storage: 'nfs' } } })).toMatchObject(
      {
        rewritten: true,
        reason: '<unset> → nfs-client by pvcRewriter.rules[0]',
        warnings: [],
      },
    );
    const elsewhere = claim({ accessModes: ['ReadWriteMany'] });
    const outcome = rewriteClaim(elsewhere, rules, { namespace: { labels: { storage: 'ceph' } } });
    expect(outcome).toMatchObject({ rewritten: false, warnings: [] });
    expect(outcome.reason).toBe('no rule matches accessModes ReadWriteMany on no class');
    expect(elsewhere.spec?.storageClassName).toBeUndefined();
  });

  it('warns when the target StorageClass does not exist, and only when that is known', () => {
    const missing = rewriteClaim(claim({ accessModes: ['ReadWriteMany'] }), rules, {
      namespace: { labels: { storage: 'nfs' } },
      storageClassExists: () => false,
    });
    expect(missing.warnings).toEqual([
      'pvc-rewriter: StorageClass nfs-client (pvcRewriter.rules[0]) does not exist; the claim stays Pending until it does',
    ]);
    const unknown = rewriteClaim(claim({ accessModes: ['ReadWriteMany'] }), rules, {
      namespace: { labels: { storage: 'nfs' } },
      storageClassExists: () => undefined,
    });
    expect(unknown.warnings).toEqual([]);
  });

  it('gives a reason for every claim it leaves alone', () => {
    const reason = (spec: object, annotations?: Record<string, string>) =>
      rewriteClaim(claim(spec, annotations), rules, { namespace: { labels: { storage: 'nfs' } } })
        .reason;
    expect(reason({ accessModes: ['ReadWriteMany'], storageClassName: '' })).toBe(
      'storageClassName "" asks for static binding (no provisioning): never rewritten',
    );
    expect(reason({ accessModes: ['ReadWriteMany'], volumeName: 'pv-1' })).toBe(
      'pre-bound to PersistentVolume pv-1: never rewritten',
    );
    expect(reason({})).toBe('no accessModes: admitted unchanged for the apiserver to judge');
    expect(reason({ accessModes: 'ReadWriteMany' })).toBe(
      'no accessModes: admitted unchanged for the apiserver to judge',
    );
    expect(reason({ accessModes: ['ReadWriteMany'], storageClassName: 'nfs-client' })).toBe(
      'already on nfs-client (pvcRewriter.rules[0])',
    );
    expect(
      reason({ accessModes: ['ReadWriteMany'] }, { 'pvc-rewriter.kfx.dev/rewrite': 'False' }),
    ).toBe('pvc-rewriter.kfx.dev/rewrite: "false": left as it is');
  });
});
