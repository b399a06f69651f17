// Claims another StorageClass cannot serve, through a real kube-apiserver: a clone (dataSource a
// PersistentVolumeClaim), a snapshot restore (dataSourceRef a VolumeSnapshot; the apiserver takes
// the reference without the snapshot CRD) and a Block claim keep their class, and the creator sees
// why in kubectl's warnings; a plain ReadWriteMany claim next to them still moves; a rule that
// opts in moves them; the skips are counted on the metrics port. On the package's shared control
// plane, in a namespace of its own.
import { resources } from '@kfx/kube-runtime/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parsePvcRewriterConfig } from './config.js';
import { ORIGINAL_CLASS_ANNOTATION, type Claim } from './rewrite.js';
import { startBehindApiserver, type RewriterBehindApiserver } from './testing/behind-apiserver.js';
import { claim, storageClass } from './testing/claims.js';

const RWX = ['ReadWriteMany'];
const config = parsePvcRewriterConfig({
  rules: [
    // The vSphere case: what did not choose a class goes to NFS.
    {
      accessModes: RWX,
      fromStorageClassNames: ['<unset>', '<default>'],
      storageClassName: 'nfs-client',
    },
    // Two classes of one CSI driver: snapshots and block volumes work across them.
    {
      accessModes: RWX,
      fromStorageClassNames: ['rbd-hdd'],
      dataSource: 'rewrite',
      volumeModes: ['Filesystem', 'Block'],
      storageClassName: 'rbd-ssd',
    },
  ],
});

const clone = { kind: 'PersistentVolumeClaim', name: 'source' };
const snapshot = { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'nightly' };

let served: RewriterBehindApiserver | undefined;
/** The file's namespace. */
let ns = '';

function named(name: string, spec: Partial<NonNullable<Claim['spec']>>, namespace = ns): Claim {
  const made = claim(spec);
  made.metadata = { ...made.metadata, name, namespace };
  return made;
}

/** Creates the claim with kubectl: what the apiserver stored, and the warnings kubectl printed. */
async function create(object: Claim): Promise<{ stored: Claim; warnings: string[] }> {
  if (!served) throw new Error('the control plane did not start');
  const run = await served.kubectl(['create', '-o', 'json', '-f', '-'], JSON.stringify(object));
  expect(run.code, run.stderr).toBe(0);
  const warnings = run.stderr
    .split('\n')
    .filter((line) => line.startsWith('Warning: '))
    .map((line) => line.slice('Warning: '.length));
  return { stored: JSON.parse(run.stdout) as Claim, warnings };
}

beforeAll(async () => {
  served = await startBehindApiserver({
    plane: inject('kfxControlPlane'),
    label: 'data-source',
    config,
    storageClasses: [
      ...['nfs-client', 'rbd-hdd', 'rbd-ssd'].map((sc) => storageClass(sc)),
      storageClass('vsphere-csi', true),
    ],
    probe: {
      claim: (namespace) => named('probe', { accessModes: RWX }, namespace),
      storageClassName: 'nfs-client',
    },
  });
  ns = served.env.namespace;
  // The claim the clone is made from.
  await served.client.create(
    resources.persistentVolumeClaims,
    named('source', { accessModes: ['ReadWriteOnce'] }),
  );
});

afterAll(async () => {
  await served?.stop();
});

describe('claims another StorageClass cannot serve, behind a real kube-apiserver', () => {
  it('keeps a clone on its class and tells its creator why', async () => {
    const { stored, warnings } = await create(
      named('clone', { accessModes: RWX, dataSource: clone }),
    );
    expect(stored.spec?.storageClassName).toBe('vsphere-csi');
    expect(stored.spec?.dataSource).toMatchObject(clone);
    expect(stored.spec?.dataSourceRef).toMatchObject(clone); // filled in after admission
    expect(stored.metadata?.annotations?.[ORIGINAL_CLASS_ANNOTATION]).toBeUndefined();
    expect(warnings).toEqual([
      `pvc-rewriter: PersistentVolumeClaim ${ns}/clone keeps class vsphere-csi: it is a clone of PersistentVolumeClaim source (spec.dataSource), which StorageClass nfs-client (pvcRewriter.rules[0]) usually cannot serve; set pvcRewriter.rules[0].dataSource: rewrite to move such claims`,
    ]);
  });

  it('keeps a snapshot restore given by dataSourceRef on its class', async () => {
    const { stored, warnings } = await create(
      named('restore', { accessModes: RWX, dataSourceRef: snapshot }),
    );
    expect(stored.spec?.storageClassName).toBe('vsphere-csi');
    // The apiserver copies the reference into dataSource when it stores the claim, after
    // admission: the webhook saw what the creator wrote, and names that field.
    expect(stored.spec?.dataSourceRef).toMatchObject(snapshot);
    expect(stored.spec?.dataSource).toMatchObject(snapshot);
    expect(warnings).toEqual([
      `pvc-rewriter: PersistentVolumeClaim ${ns}/restore keeps class vsphere-csi: it is restored from VolumeSnapshot nightly (spec.dataSourceRef), which StorageClass nfs-client (pvcRewriter.rules[0]) usually cannot serve; set pvcRewriter.rules[0].dataSource: rewrite to move such claims`,
    ]);
  });

  it('keeps a Block claim on its class and tells its creator why', async () => {
    const { stored, warnings } = await create(
      named('raw', { accessModes: RWX, volumeMode: 'Block' }),
    );
    expect(stored.spec?.storageClassName).toBe('vsphere-csi');
    expect(warnings).toEqual([
      `pvc-rewriter: PersistentVolumeClaim ${ns}/raw keeps class vsphere-csi: it asks for volumeMode Block, which StorageClass nfs-client (pvcRewriter.rules[0]) usually cannot serve; add Block to pvcRewriter.rules[0].volumeModes to move such claims`,
    ]);
  });

  it('still moves a plain ReadWriteMany claim, without a warning', async () => {
    const { stored, warnings } = await create(named('shared', { accessModes: RWX }));
    expect(stored.spec?.storageClassName).toBe('nfs-client');
    expect(stored.spec?.volumeMode).toBe('Filesystem'); // defaulted by the apiserver
    expect(stored.metadata?.annotations?.[ORIGINAL_CLASS_ANNOTATION]).toBe('vsphere-csi');
    expect(warnings).toEqual([]);
  });

  it('moves a clone, a snapshot restore and a Block claim with a rule that opts in', async () => {
    for (const [name, spec] of [
      ['fast-clone', { dataSource: clone }],
      ['fast-restore', { dataSourceRef: snapshot }],
      ['fast-raw', { volumeMode: 'Block' }],
    ] as const) {
      const { stored, warnings } = await create(
        named(name, { accessModes: RWX, storageClassName: 'rbd-hdd', ...spec }),
      );
      expect(stored.spec?.storageClassName, name).toBe('rbd-ssd');
      expect(stored.metadata?.annotations?.[ORIGINAL_CLASS_ANNOTATION], name).toBe('rbd-hdd');
      expect(warnings, name).toEqual([]);
    }
  });

  it('counts the claims it kept, by reason and rule, on the metrics port', async () => {
    const text = (await served?.metrics()) ?? '';
    const lines = text.split('\n');
    expect(lines).toContain(
      'kfx_pvc_rewriter_claims_skipped_total{reason="data-source",rule="0"} 2',
    );
    expect(lines).toContain(
      'kfx_pvc_rewriter_claims_skipped_total{reason="volume-mode",rule="0"} 1',
    );
    expect(
      lines.filter((line) => line.startsWith('kfx_pvc_rewriter_claims_skipped_total{')),
    ).toHaveLength(2);
  });
});
