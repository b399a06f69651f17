// Check `exposer` on a real control plane with cert-manager's Certificate API (its CRDs, not
// cert-manager): the exposer's serving certificate near its end is a warning, its CA past its
// end an error, and both go once the Certificates say they were renewed.
import { fileURLToPath } from 'node:url';
import { installCrds, kubectl, useSharedControlPlane, type SharedControlPlane } from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { adminDoctor, apply, codes, type Doctor } from '../testing/cluster.js';

const crds = fileURLToPath(
  new URL('../../../../tooling/e2e/crds/cert-manager-minimal.yaml', import.meta.url),
);
let env: SharedControlPlane;
let doctor: Doctor;

beforeAll(async () => {
  env = await useSharedControlPlane(inject('kfxControlPlane'), 'doctor-exposer');
  doctor = adminDoctor(env);
  await installCrds(env.kubeConfig, [crds]);
});
afterAll(async () => {
  await kubectl(env.kubeConfig, ['delete', '-f', crds, '--ignore-not-found', '--wait=false']);
  doctor.close();
  await env.release();
});

const days = (n: number) =>
  new Date(Date.now() + n * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');

async function certificate(name: string, secretName: string, isCA: boolean, notAfter: string) {
  await apply(env, {
    apiVersion: 'cert-manager.io/v1',
    kind: 'Certificate',
    metadata: { name, namespace: env.namespace },
    spec: { secretName, isCA, issuerRef: { name: 'ca', kind: 'Issuer' } },
  });
  await kubectl(env.kubeConfig, [
    '-n',
    env.namespace,
    'patch',
    'certificate',
    name,
    '--subresource',
    'status',
    '--type',
    'merge',
    '-p',
    JSON.stringify({ status: { notAfter } }),
  ]);
}

describe('check exposer', () => {
  it("counts the days left of the exposer's certificate and CA, and is quiet once they are renewed", async () => {
    await apply(env, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'kfx-expose-api',
        namespace: env.namespace,
        labels: { 'app.kubernetes.io/name': 'kfx-expose-api' },
      },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'x' } },
        template: {
          metadata: { labels: { app: 'x' } },
          spec: {
            containers: [{ name: 'proxy', image: 'x.invalid/cli:1' }],
            volumes: [{ name: 'tls', secret: { secretName: 'kfx-expose-api-tls' } }],
          },
        },
      },
    });
    await certificate('kfx-expose-api', 'kfx-expose-api-tls', false, days(5));
    await certificate('kfx-expose-api-ca', 'kfx-expose-api-ca', true, days(-1));
    const found = await doctor.findings(['exposer'], env.namespace);
    expect(codes(found)).toEqual(['exposer.certificate-expired', 'exposer.certificate-expiring']);
    expect(found.find((f) => f.code === 'exposer.certificate-expiring')?.message).toMatch(
      /serving certificate ends in [45] days/,
    );
    await certificate('kfx-expose-api', 'kfx-expose-api-tls', false, days(90));
    await certificate('kfx-expose-api-ca', 'kfx-expose-api-ca', true, days(3650));
    expect(await doctor.findings(['exposer'], env.namespace)).toEqual([]);
  });
});
