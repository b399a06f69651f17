// Check `rwx-claims` with the real pvc-rewriter on a real control plane: a ReadWriteMany claim
// that lands on no StorageClass, or on one that does not exist, is found with the fix, and the
// finding goes once the class is there.
import { kubectl, useSharedControlPlane, type SharedControlPlane } from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { adminDoctor, apply, codes, type Doctor } from '../testing/cluster.js';
import { serveKfxWebhook } from '../testing/kfx-webhook.js';

let env: SharedControlPlane;
let doctor: Doctor;
let storageClass: string;

beforeAll(async () => {
  env = await useSharedControlPlane(inject('kfxControlPlane'), 'doctor-rwx');
  doctor = adminDoctor(env);
  storageClass = `nfs-${env.namespace}`;
});
afterAll(async () => {
  await kubectl(env.kubeConfig, ['delete', 'storageclass', storageClass, '--ignore-not-found']);
  doctor.close();
  await env.release();
});

const rwx = () => doctor.findings(['rwx-claims'], env.namespace, { namespaces: [env.namespace] });

describe('check rwx-claims', () => {
  it('warns when a ReadWriteMany claim gets no StorageClass at all', async () => {
    const [none] = await rwx();
    expect(none).toMatchObject({ code: 'rwx-claims.no-class', severity: 'warning' });
    expect(none?.fix).toContain('pvcRewriter');
  });

  it('is an error when the pvc-rewriter sends claims to a class that does not exist, and gone once it does', async () => {
    const served = await serveKfxWebhook(env, {
      name: env.namespace,
      pvcRewriter: { rules: [{ accessModes: ['ReadWriteMany'], storageClassName: storageClass }] },
    });
    try {
      const [missing] = await rwx();
      expect(missing).toMatchObject({ code: 'rwx-claims.class-missing', severity: 'error' });
      expect(missing?.message).toContain(`StorageClass ${storageClass}, which does not exist`);
      expect(missing?.fix).toBe(
        `create StorageClass ${storageClass} (a ReadWriteMany-capable provisioner)`,
      );
      await apply(env, {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: { name: storageClass },
        provisioner: 'nfs.csi.k8s.io',
      });
      expect(codes(await rwx())).toEqual([]);
    } finally {
      await served.stop();
    }
  });
});
