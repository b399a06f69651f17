import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { parsePvcRewriterConfig, pvcRewriterConfigSchema } from './config.js';
import { ConfigError, describeIssues } from '@kfx/kube-runtime/serving';

function problems(input: unknown): readonly string[] {
  try {
    parsePvcRewriterConfig(input);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('the configuration was accepted');
}

describe('pvcRewriter configuration', () => {
  it('accepts the documented rule shapes', () => {
    const config = parsePvcRewriterConfig({
      rules: [
        {
          accessModes: ['ReadWriteMany'],
          fromStorageClassNames: ['<unset>', 'vsphere-csi'],
          namespaceSelector: {
            matchLabels: { 'app.kubernetes.io/part-of': 'kubeflow-profile' },
            matchExpressions: [{ key: 'storage', operator: 'NotIn', values: ['local'] }],
          },
          storageClassName: 'nfs-client',
        },
      ],
    });
    expect(config.rules[0]?.storageClassName).toBe('nfs-client');
  });

  it('stops start-up with a message naming the rule and the key', () => {
    expect(
      problems({
        rules: [
          { accessModes: ['ReadWriteMany'], storageClassName: 'nfs-client' },
          { accessModes: ['ReadWriteMany'] },
          { accessModes: ['RWX'], storageClassName: 'NFS_Client', fromStorageClassNames: [''] },
          { accessModes: [], storageClassName: 'x', fromStorageClassNames: [] },
          {
            accessModes: ['ReadWriteMany'],
            storageClassName: 'x',
            namespaceSelector: {
              matchExpressions: [
                { key: 'a', operator: 'In' },
                { key: 'b/c/d', operator: 'Exists', values: ['1'] },
              ],
            },
          },
          'nfs-client',
        ],
      }),
    ).toEqual([
      'pvcRewriter.rules[1].storageClassName: Required',
      'pvcRewriter.rules[2].accessModes[0]: expected ReadWriteOnce, ReadOnlyMany, ReadWriteMany, ReadWriteOncePod',
      'pvcRewriter.rules[2].fromStorageClassNames[0]: "" (static binding) is never rewritten; write <unset> for claims that name no class',
      'pvcRewriter.rules[2].storageClassName: expected a StorageClass name (a DNS subdomain such as nfs-client)',
      'pvcRewriter.rules[3].accessModes: expected at least one access mode, e.g. [ReadWriteMany]',
      'pvcRewriter.rules[3].fromStorageClassNames: expected at least one class (<unset> for none), or leave the key out',
      'pvcRewriter.rules[4].namespaceSelector.matchExpressions[0].values: In needs values',
      'pvcRewriter.rules[4].namespaceSelector.matchExpressions[1].key: expected a label key such as team or example.com/tier',
      'pvcRewriter.rules[4].namespaceSelector.matchExpressions[1].values: Exists takes no values',
      'pvcRewriter.rules[5]: expected a rule (accessModes, fromStorageClassNames, namespaceSelector, storageClassName, dataSource, volumeModes)',
    ]);
  });

  it('leaves claims with a data source or a block volume alone unless a rule says otherwise', () => {
    const [plain, optedIn] = parsePvcRewriterConfig({
      rules: [
        { accessModes: ['ReadWriteMany'], storageClassName: 'nfs-client' },
        {
          accessModes: ['ReadWriteMany'],
          dataSource: 'rewrite',
          volumeModes: ['Filesystem', 'Block'],
          storageClassName: 'rbd-ssd',
        },
      ],
    }).rules;
    expect(plain).toMatchObject({ dataSource: 'skip', volumeModes: ['Filesystem'] });
    expect(optedIn).toMatchObject({ dataSource: 'rewrite', volumeModes: ['Filesystem', 'Block'] });
  });

  it('names the rule and key of a bad dataSource or volumeModes', () => {
    const rule = { accessModes: ['ReadWriteMany'], storageClassName: 'x' };
    expect(
      problems({
        rules: [
          { ...rule, dataSource: 'copy' },
          { ...rule, dataSource: true },
          { ...rule, volumeModes: ['block'] },
          { ...rule, volumeModes: [] },
          { ...rule, volumeModes: 'Block' },
          { ...rule, volumeMode: ['Block'] },
        ],
      }),
    ).toEqual([
      'pvcRewriter.rules[0].dataSource: expected skip or rewrite',
      'pvcRewriter.rules[1].dataSource: expected skip or rewrite',
      'pvcRewriter.rules[2].volumeModes[0]: expected Filesystem or Block',
      'pvcRewriter.rules[3].volumeModes: expected at least one volume mode, e.g. [Filesystem]',
      'pvcRewriter.rules[4].volumeModes: expected a list of volume modes, e.g. [Filesystem, Block]',
      'pvcRewriter.rules[5].volumeMode: unknown key',
    ]);
  });

  it('rejects unknown keys and a missing rule list', () => {
    expect(
      problems({
        rules: [{ accessModes: ['ReadWriteMany'], storageclassname: 'x', storageClassName: 'y' }],
      }),
    ).toEqual(['pvcRewriter.rules[0].storageclassname: unknown key']);
    expect(problems({})).toEqual(['pvcRewriter.rules: Required']);
  });

  it('gives full key paths when embedded in the kfx-webhook configuration', () => {
    const root = z.object({ pvcRewriter: pvcRewriterConfigSchema });
    const result = root.safeParse({
      pvcRewriter: { rules: [{}, { accessModes: ['ReadWriteMany'] }] },
    });
    expect(describeIssues(result.error?.issues ?? [], '')).toEqual([
      'pvcRewriter.rules[0].accessModes: Required',
      'pvcRewriter.rules[0].storageClassName: Required',
      'pvcRewriter.rules[1].storageClassName: Required',
    ]);
  });
});
