import { describe, expect, it } from 'vitest';
import { parsePvcRewriterConfig } from './config.js';
import { previewPvcRewrite } from './preview.js';
import { claim } from './testing/claims.js';

const config = parsePvcRewriterConfig({
  rules: [
    {
      accessModes: ['ReadWriteMany'],
      namespaceSelector: { matchLabels: { storage: 'nfs' } },
      storageClassName: 'nfs-client',
    },
  ],
});

describe('offline preview of a claim', () => {
  it('shows the rewrite, its rule and the missing class, leaving the input alone', () => {
    const input = claim({ accessModes: ['ReadWriteMany'], storageClassName: 'vsphere-csi' });
    const copy = structuredClone(input);
    const preview = previewPvcRewrite(input, config, {
      namespaceLabels: { storage: 'nfs' },
      storageClasses: ['vsphere-csi'],
    });
    expect(input).toEqual(copy);
    expect(preview.rewritten).toBe(true);
    expect(preview.object.spec?.storageClassName).toBe('nfs-client');
    expect(preview.patch).toContainEqual({
      op: 'replace',
      path: '/spec/storageClassName',
      value: 'nfs-client',
    });
    expect(preview.notes).toEqual([
      'PersistentVolumeClaim team-a/workspace: vsphere-csi → nfs-client by pvcRewriter.rules[0]',
      'pvc-rewriter: StorageClass nfs-client (pvcRewriter.rules[0]) does not exist; the claim stays Pending until it does',
      'pvcRewriter.rules[0]: accessModes ReadWriteMany; namespaces storage=nfs → nfs-client',
    ]);
  });

  it('says when a rule needs the namespace labels it was not given', () => {
    const preview = previewPvcRewrite(claim({ accessModes: ['ReadWriteMany'] }), config);
    expect(preview.patch).toEqual([]);
    expect(preview.warnings).toEqual([
      'pvc-rewriter: pvcRewriter.rules[0] skipped, it cannot be decided: no namespace labels were given to the preview',
    ]);
  });

  it('shows why a clone keeps its class, as the webhook would warn', () => {
    const toNfs = parsePvcRewriterConfig({
      rules: [{ accessModes: ['ReadWriteMany'], storageClassName: 'nfs-client' }],
    });
    const clone = claim({
      accessModes: ['ReadWriteMany'],
      storageClassName: 'vsphere-csi',
      dataSource: { kind: 'PersistentVolumeClaim', name: 'data' },
    });
    const preview = previewPvcRewrite(clone, toNfs);
    expect(preview).toMatchObject({ rewritten: false, patch: [] });
    expect(preview.notes).toEqual([
      'PersistentVolumeClaim team-a/workspace: kept on class vsphere-csi by pvcRewriter.rules[0]: it is a clone of PersistentVolumeClaim data (spec.dataSource)',
      ...preview.warnings,
    ]);
    expect(preview.warnings).toHaveLength(1);
  });

  it('refuses what is not a claim', () => {
    expect(() => previewPvcRewrite({ kind: 'Pod' }, config)).toThrow(
      'expected a PersistentVolumeClaim, got Pod',
    );
    expect(() => previewPvcRewrite('pvc.yaml', config)).toThrow('expected one Kubernetes object');
  });
});
