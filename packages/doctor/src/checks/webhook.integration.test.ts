// Check `webhook` against real servers: the certificate the webhook serves is verified with the
// caBundle the API server holds (a wrong one is an error with its fix, and the error goes once
// the caBundle is right), its days left are counted, and a Service without a ready endpoint is
// an error that goes once the Deployment's Pods are ready.
import { Buffer } from 'node:buffer';
import { createCertificateAuthority } from '@kfx/dev-certs';
import { kubectl, useSharedControlPlane, waitFor, type SharedControlPlane } from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { adminDoctor, apply, codes, type Doctor } from '../testing/cluster.js';
import { serveKfxWebhook } from '../testing/kfx-webhook.js';

let env: SharedControlPlane;
let doctor: Doctor;

beforeAll(async () => {
  env = await useSharedControlPlane(inject('kfxControlPlane'), 'doctor-webhook');
  doctor = adminDoctor(env);
});
afterAll(async () => {
  doctor.close();
  await env.release();
});

const patchCaBundle = (name: string, pem: string) =>
  kubectl(env.kubeConfig, [
    'patch',
    'mutatingwebhookconfiguration',
    name,
    '--type',
    'json',
    '-p',
    JSON.stringify([
      {
        op: 'replace',
        path: '/webhooks/0/clientConfig/caBundle',
        value: Buffer.from(pem).toString('base64'),
      },
    ]),
  ]);

describe('check webhook', () => {
  it('verifies the served certificate with the caBundle: a wrong one is an error with its fix, gone once it is right', async () => {
    const name = env.namespace;
    const served = await serveKfxWebhook(env, { name });
    try {
      expect(codes(await doctor.findings(['webhook'], name))).not.toContain(
        'webhook.ca-bundle-mismatch',
      );
      await patchCaBundle(name, createCertificateAuthority({ commonName: 'someone else' }).cert);
      const [mismatch] = (await doctor.findings(['webhook'], name)).filter(
        (finding) => finding.code === 'webhook.ca-bundle-mismatch',
      );
      expect(mismatch).toMatchObject({
        severity: 'error',
        object: `MutatingWebhookConfiguration ${name}`,
      });
      expect(mismatch?.message).toContain('kfx doctor test CA');
      expect(mismatch?.fix).toContain(`MutatingWebhookConfiguration ${name}`);
      await patchCaBundle(name, served.tls.caCert);
      expect(codes(await doctor.findings(['webhook'], name))).not.toContain(
        'webhook.ca-bundle-mismatch',
      );
    } finally {
      await served.stop();
    }
  });

  it('warns about a served certificate near its end, naming the days left', async () => {
    const name = `${env.namespace}-short`;
    const short = await serveKfxWebhook(env, { name, validityDays: 10 });
    try {
      const [expiring] = (await doctor.findings(['webhook'], name)).filter(
        (finding) => finding.code === 'webhook.certificate-expiring',
      );
      expect(expiring?.severity).toBe('warning');
      expect(expiring?.message).toMatch(/ends in (9|10) days/);
    } finally {
      await short.stop();
    }
    const long = await serveKfxWebhook(env, { name, validityDays: 365 });
    try {
      expect(codes(await doctor.findings(['webhook'], name))).not.toContain(
        'webhook.certificate-expiring',
      );
    } finally {
      await long.stop();
    }
  });

  it('is an error when the Service has no ready endpoint, with the scale command; gone once a Pod is ready', async () => {
    const name = `${env.namespace}-svc`;
    const labels = { app: 'kfx-webhook-test' };
    await apply(
      env,
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'kfx-webhook', namespace: env.namespace },
        spec: {
          replicas: 0,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: {
              containers: [{ name: 'webhook', image: 'kfx.invalid/webhook:1' }],
              tolerations: [{ operator: 'Exists' }],
              nodeSelector: { type: 'kwok' },
            },
          },
        },
      },
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'kfx-webhook', namespace: env.namespace },
        spec: { selector: labels, ports: [{ name: 'https', port: 443, targetPort: 8443 }] },
      },
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingWebhookConfiguration',
        metadata: { name },
        webhooks: [
          {
            name: 'proxy-injector.kfx.dev',
            admissionReviewVersions: ['v1'],
            clientConfig: {
              service: {
                name: 'kfx-webhook',
                namespace: env.namespace,
                path: '/mutate/proxy-injector',
                port: 443,
              },
              caBundle: Buffer.from(createCertificateAuthority().cert).toString('base64'),
            },
            rules: [
              { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] },
            ],
            failurePolicy: 'Ignore',
            sideEffects: 'None',
            // Never called: only what the doctor reads of it matters here.
            namespaceSelector: { matchLabels: { 'kfx.dev/never': 'true' } },
          },
        ],
      },
    );
    try {
      const [down] = (await doctor.findings(['webhook'], env.namespace)).filter(
        (finding) => finding.code === 'webhook.no-endpoints',
      );
      expect(down).toMatchObject({
        severity: 'error',
        object: `Service ${env.namespace}/kfx-webhook`,
      });
      expect(down?.message).toContain(
        'failurePolicy Ignore, Pods are created without the proxy variables',
      );
      expect(down?.fix).toBe(
        `kubectl -n ${env.namespace} scale deployment kfx-webhook --replicas=2`,
      );
      await kubectl(env.kubeConfig, [
        '-n',
        env.namespace,
        'scale',
        'deployment',
        'kfx-webhook',
        '--replicas=1',
      ]);
      await waitFor(
        async () => {
          const left = codes(await doctor.findings(['webhook'], env.namespace));
          return left.includes('webhook.no-endpoints')
            ? { done: false, saw: left.join(', ') }
            : { done: true, value: undefined };
        },
        {
          description: 'the webhook Service to get a ready endpoint',
          timeoutMs: 60_000,
          intervalMs: 1000,
        },
      );
    } finally {
      await kubectl(env.kubeConfig, [
        'delete',
        'mutatingwebhookconfiguration',
        name,
        '--ignore-not-found',
      ]);
    }
  });
});
