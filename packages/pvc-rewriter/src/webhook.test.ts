import type { PatchOperation } from '@kfx/admission-core';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { parsePvcRewriterConfig, type PvcRewriterConfigInput } from './config.js';
import { admit, claim } from './testing/claims.js';
import { createPvcRewriter } from './webhook.js';

const RWX = ['ReadWriteMany'];

function rewriter(rules: PvcRewriterConfigInput['rules']) {
  return createPvcRewriter(parsePvcRewriterConfig({ rules }), {
    logger: pino({ level: 'silent' }),
  });
}

// The order of operations in a patch carries no meaning here.
const byPath = (patch: PatchOperation[]) => [...patch].sort((a, b) => a.path.localeCompare(b.path));

const toNfs = rewriter([{ accessModes: RWX, storageClassName: 'nfs-client' }]);

describe('the PVC rewriter on CREATE', () => {
  it('rewrites a ReadWriteMany claim that names no class, recording "" as the original', async () => {
    const result = await admit(toNfs, claim({ accessModes: RWX }));
    expect(byPath(result.patch)).toEqual(
      byPath([
        {
          op: 'add',
          path: '/metadata/annotations',
          value: { 'pvc-rewriter.kfx.dev/original-storage-class': '' },
        },
        { op: 'add', path: '/spec/storageClassName', value: 'nfs-client' },
      ]),
    );
    expect(result.warnings).toEqual([]);
  });

  it('rewrites a claim on another class, escaping the annotation key in the patch', async () => {
    const result = await admit(
      toNfs,
      claim(
        { accessModes: ['ReadWriteOnce', 'ReadWriteMany'], storageClassName: 'vsphere-csi' },
        { team: 'a' },
      ),
    );
    expect(byPath(result.patch)).toEqual(
      byPath([
        { op: 'replace', path: '/spec/storageClassName', value: 'nfs-client' },
        {
          op: 'add',
          path: '/metadata/annotations/pvc-rewriter.kfx.dev~1original-storage-class',
          value: 'vsphere-csi',
        },
      ]),
    );
  });

  it('leaves ReadWriteOnce and ReadOnlyMany claims alone when the rule is for ReadWriteMany', async () => {
    for (const mode of ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteOncePod']) {
      expect((await admit(toNfs, claim({ accessModes: [mode] }))).patch).toEqual([]);
    }
  });

  it('never rewrites static binding, pre-bound claims, claims already on the target, or claims without accessModes', async () => {
    for (const spec of [
      { accessModes: RWX, storageClassName: '' },
      { accessModes: RWX, volumeName: 'pv-nfs-0001' },
      { accessModes: RWX, storageClassName: 'nfs-client' },
      {},
      { accessModes: [] },
    ]) {
      const result = await admit(toNfs, claim(spec));
      expect(result).toMatchObject({ allowed: true, outcome: 'allowed', patch: [] });
    }
  });

  it('never rewrites on UPDATE, nor a claim that opts out by annotation', async () => {
    const rwx = claim({ accessModes: RWX, storageClassName: 'vsphere-csi' });
    expect((await admit(toNfs, rwx, { operation: 'UPDATE', oldObject: rwx })).patch).toEqual([]);
    const optedOut = claim({ accessModes: RWX }, { 'pvc-rewriter.kfx.dev/rewrite': 'false' });
    expect((await admit(toNfs, optedOut)).patch).toEqual([]);
  });

  it('is idempotent: the rewritten claim yields no second patch', async () => {
    const rewritten = claim(
      { accessModes: RWX, storageClassName: 'nfs-client' },
      { 'pvc-rewriter.kfx.dev/original-storage-class': 'vsphere-csi' },
    );
    expect((await admit(toNfs, rewritten)).patch).toEqual([]);
  });

  it('limits a rule to the listed classes, <unset> standing for claims that name none; first match wins', async () => {
    const webhook = rewriter([
      {
        accessModes: RWX,
        fromStorageClassNames: ['<unset>', 'vsphere-csi'],
        storageClassName: 'nfs-client',
      },
      { accessModes: RWX, fromStorageClassNames: ['fast'], storageClassName: 'fast-rwx' },
      { accessModes: RWX, storageClassName: 'fallback' },
    ]);
    const target = async (storageClassName?: string) => {
      const { patch } = await admit(
        webhook,
        claim({ accessModes: RWX, ...(storageClassName ? { storageClassName } : {}) }),
      );
      return patch.find((op) => op.path === '/spec/storageClassName') as
        { value?: unknown } | undefined;
    };
    expect((await target())?.value).toBe('nfs-client');
    expect((await target('vsphere-csi'))?.value).toBe('nfs-client');
    expect((await target('fast'))?.value).toBe('fast-rwx');
    expect((await target('other'))?.value).toBe('fallback');
  });

  it('honours the old volume.beta.kubernetes.io/storage-class annotation, rewriting it too', async () => {
    const old = claim(
      { accessModes: RWX },
      { 'volume.beta.kubernetes.io/storage-class': 'vsphere-csi' },
    );
    const { patch } = await admit(toNfs, old);
    expect(patch).toContainEqual({
      op: 'replace',
      path: '/metadata/annotations/volume.beta.kubernetes.io~1storage-class',
      value: 'nfs-client',
    });
    expect(patch).toContainEqual({
      op: 'add',
      path: '/metadata/annotations/pvc-rewriter.kfx.dev~1original-storage-class',
      value: 'vsphere-csi',
    });
    const staticBeta = claim(
      { accessModes: RWX },
      { 'volume.beta.kubernetes.io/storage-class': '' },
    );
    expect((await admit(toNfs, staticBeta)).patch).toEqual([]);
  });

  it('without API access, skips a rule with a namespaceSelector and says why in a warning', async () => {
    const webhook = rewriter([
      {
        accessModes: RWX,
        namespaceSelector: { matchLabels: { storage: 'nfs' } },
        storageClassName: 'nfs-client',
      },
      { accessModes: RWX, storageClassName: 'fallback' },
    ]);
    const result = await admit(webhook, claim({ accessModes: RWX }));
    expect(result.patch).toContainEqual({
      op: 'add',
      path: '/spec/storageClassName',
      value: 'fallback',
    });
    expect(result.warnings).toEqual([
      'pvc-rewriter: pvcRewriter.rules[0] skipped, it cannot be decided: the webhook has no API access',
    ]);
  });
});
