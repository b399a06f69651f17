// The check of docs/migration/from-vsphere-pvc-mutator.md: with the guide's Helm values, the real
// kfx-webhook binary (registered with the real API server through the chart's own webhook
// configuration) gives the guide's claims the classes of the guide's `kfx` column, and the `old`
// column is what the old mutator's one rule gives them.
import type { V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { applyManifests, startControlPlane, type ControlPlane } from '@kfx/testenv';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createThroughWebhook } from '../admission.js';
import { listJson } from '../cluster.js';
import { readGuide } from '../guide.js';
import { kubectl as kubectlOk } from '@kfx/testenv';
import { startWebhookFromChart, type WebhookUnderTest } from '../webhook-server.js';

const guide = readGuide('from-vsphere-pvc-mutator.md');
const claims = guide.yaml<V1PersistentVolumeClaim>('claims');
const [expected = {}] =
  guide.yaml<Record<string, { old: string; kfx: string }>>('expected-classes');
const dir = mkdtempSync(join(tmpdir(), 'kfx-e2e-vsphere-'));
let env: ControlPlane | undefined;
let webhook: WebhookUnderTest | undefined;
const stored = new Map<string, V1PersistentVolumeClaim>();

/** The old mutator: every ReadWriteMany claim to its one class, whatever it asked for. */
const oldMutator = (claim: V1PersistentVolumeClaim, defaultClass: string) =>
  claim.spec?.accessModes?.includes('ReadWriteMany')
    ? 'nfs-client'
    : (claim.spec?.storageClassName ?? defaultClass);

beforeAll(async () => {
  env = await startControlPlane();
  const kubeconfig = env.kubeconfigPath;
  await kubectlOk(kubeconfig, ['create', 'namespace', 'alice']);
  await applyManifests(kubeconfig, guide.text('storageclasses'));
  webhook = await startWebhookFromChart({
    values: guide.text('webhook-values'),
    kubeconfigPath: kubeconfig,
    dir,
  });
  const [first, ...rest] = claims;
  if (!first) throw new Error(`${guide.file}: the claims block holds no claim`);
  await createThroughWebhook<V1PersistentVolumeClaim>(
    kubeconfig,
    first,
    (admitted) => admitted.spec?.storageClassName === 'nfs-client',
  );
  await kubectlOk(kubeconfig, ['create', '-f', '-'], rest.map((c) => JSON.stringify(c)).join('\n'));
  const list = await listJson<V1PersistentVolumeClaim>(kubeconfig, ['pvc'], 'alice');
  for (const claim of list) stored.set(claim.metadata?.name ?? '', claim);
});

afterAll(async () => {
  await webhook?.stop();
  await env?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe(guide.file, () => {
  it('the expected classes name every claim of the guide', () => {
    expect(Object.keys(expected).sort()).toEqual(claims.map((c) => c.metadata?.name).sort());
  });

  it.each(claims.map((c) => [c.metadata?.name ?? '', c] as const))(
    'claim %s gets the class of the kfx column; the old column is the old rule',
    (name, claim) => {
      const row = expected[name];
      expect(stored.get(name)?.spec?.storageClassName).toBe(row?.kfx);
      expect(oldMutator(claim, 'vsphere-csi')).toBe(row?.old);
    },
  );

  it('records the class a rewritten claim arrived with', () => {
    expect(
      stored.get('workspace')?.metadata?.annotations?.[
        'pvc-rewriter.kfx.dev/original-storage-class'
      ],
    ).toBe('vsphere-csi');
  });
});
