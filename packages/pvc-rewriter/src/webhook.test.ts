import type { PatchOperation } from '@kfx/admission-core';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { parsePvcRewriterConfig, type PvcRewriterConfigInput } from './config.js';
import { SKIPPED_CLAIMS_METRIC } from './metrics.js';
import { admit, claim } from './testing/claims.js';
import { createPvcRewriter } from './webhook.js';

const RWX = ['ReadWriteMany'];

function rewriter(rules: PvcRewriterConfigInput['rules'], registry?: Registry) {
  return createPvcRewriter(parsePvcRewriterConfig({ rules }), {
    logger: pino({ level: 'silent' }),
    registry,
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

describe('claims another StorageClass cannot serve', () => {
  const clone = { kind: 'PersistentVolumeClaim', name: 'data' };
  const snapshot = { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'nightly' };

  async function skippedCounts(registry: Registry): Promise<string[]> {
    const text = await registry.metrics();
    return text.split('\n').filter((line) => line.startsWith(`${SKIPPED_CLAIMS_METRIC}{`));
  }

  it('keeps a clone, a snapshot restore and a block claim on their class, tells the creator why and counts them', async () => {
    const registry = new Registry();
    const webhook = rewriter([{ accessModes: RWX, storageClassName: 'nfs-client' }], registry);
    const kept = async (name: string, spec: object) => {
      const made = claim({ accessModes: RWX, storageClassName: 'vsphere-csi', ...spec });
      made.metadata = { ...made.metadata, name };
      const result = await admit(webhook, made);
      expect(result).toMatchObject({ allowed: true, outcome: 'allowed', patch: [] });
      return result.warnings;
    };
    expect(await kept('clone', { dataSource: clone, dataSourceRef: clone })).toEqual([
      'pvc-rewriter: PersistentVolumeClaim team-a/clone keeps class vsphere-csi: it is a clone of PersistentVolumeClaim data (spec.dataSource), which StorageClass nfs-client (pvcRewriter.rules[0]) usually cannot serve; set pvcRewriter.rules[0].dataSource: rewrite to move such claims',
    ]);
    expect(await kept('restore', { dataSourceRef: snapshot })).toEqual([
      'pvc-rewriter: PersistentVolumeClaim team-a/restore keeps class vsphere-csi: it is restored from VolumeSnapshot nightly (spec.dataSourceRef), which StorageClass nfs-client (pvcRewriter.rules[0]) usually cannot serve; set pvcRewriter.rules[0].dataSource: rewrite to move such claims',
    ]);
    expect(await kept('raw', { volumeMode: 'Block' })).toEqual([
      'pvc-rewriter: PersistentVolumeClaim team-a/raw keeps class vsphere-csi: it asks for volumeMode Block, which StorageClass nfs-client (pvcRewriter.rules[0]) usually cannot serve; add Block to pvcRewriter.rules[0].volumeModes to move such claims',
    ]);
    expect(await kept('raw-clone', { volumeMode: 'Block', dataSource: clone })).toEqual([
      'pvc-rewriter: PersistentVolumeClaim team-a/raw-clone keeps class vsphere-csi: it is a clone of PersistentVolumeClaim data (spec.dataSource) and it asks for volumeMode Block, which StorageClass nfs-client (pvcRewriter.rules[0]) usually cannot serve; set pvcRewriter.rules[0].dataSource: rewrite and add Block to pvcRewriter.rules[0].volumeModes to move such claims',
    ]);
    expect(await skippedCounts(registry)).toEqual([
      `${SKIPPED_CLAIMS_METRIC}{reason="data-source",rule="0"} 3`,
      `${SKIPPED_CLAIMS_METRIC}{reason="volume-mode",rule="0"} 2`,
    ]);
    // The plain ReadWriteMany claim next to them still moves.
    const plain = await admit(
      webhook,
      claim({ accessModes: RWX, storageClassName: 'vsphere-csi' }),
    );
    expect(plain.patch).toContainEqual({
      op: 'replace',
      path: '/spec/storageClassName',
      value: 'nfs-client',
    });
    expect(plain.warnings).toEqual([]);
  });

  it('does not count dry runs, which create no claim, but still warns', async () => {
    const registry = new Registry();
    const webhook = rewriter([{ accessModes: RWX, storageClassName: 'nfs-client' }], registry);
    const result = await admit(webhook, claim({ accessModes: RWX, volumeMode: 'Block' }), {
      dryRun: true,
    });
    expect(result.warnings).toHaveLength(1);
    expect(await skippedCounts(registry)).toEqual([]);
  });

  it('moves them with a rule that opts in, recording the original class, once', async () => {
    const registry = new Registry();
    const webhook = rewriter(
      [
        {
          accessModes: RWX,
          dataSource: 'rewrite',
          volumeModes: ['Filesystem', 'Block'],
          storageClassName: 'rbd-ssd',
        },
      ],
      registry,
    );
    const raw = claim({
      accessModes: RWX,
      storageClassName: 'rbd-hdd',
      volumeMode: 'Block',
      dataSource: clone,
    });
    const result = await admit(webhook, raw);
    expect(byPath(result.patch)).toEqual(
      byPath([
        { op: 'replace', path: '/spec/storageClassName', value: 'rbd-ssd' },
        {
          op: 'add',
          path: '/metadata/annotations',
          value: { 'pvc-rewriter.kfx.dev/original-storage-class': 'rbd-hdd' },
        },
      ]),
    );
    expect(result.warnings).toEqual([]);
    const again = claim(
      { accessModes: RWX, storageClassName: 'rbd-ssd', volumeMode: 'Block', dataSource: clone },
      { 'pvc-rewriter.kfx.dev/original-storage-class': 'rbd-hdd' },
    );
    expect(await admit(webhook, again)).toMatchObject({ patch: [], warnings: [] });
    expect(await skippedCounts(registry)).toEqual([]);
  });

  it('never moves static binding or pre-bound claims, data source or not', async () => {
    const takesAll = rewriter([
      {
        accessModes: RWX,
        dataSource: 'rewrite',
        volumeModes: ['Filesystem', 'Block'],
        storageClassName: 'nfs-client',
      },
    ]);
    for (const spec of [
      { accessModes: RWX, storageClassName: '', dataSource: clone },
      { accessModes: RWX, volumeName: 'pv-1', volumeMode: 'Block' },
    ]) {
      expect(await admit(takesAll, claim(spec))).toMatchObject({ patch: [], warnings: [] });
    }
  });
});
