// Client-certificate authentication of the apiserver: the server, given a client CA, serves only
// clients that present a certificate it signed, and a real kube-apiserver, told by its
// AdmissionConfiguration (--admission-control-config-file, a kubeconfig naming the webhook's
// host) which certificate to present, is such a client. A tenant who reaches the port cannot
// even finish the TLS handshake. Owns its control plane: it starts the apiserver with its own
// admission configuration.
import type { V1Pod } from '@kubernetes/client-node';
import { createCertificateAuthority } from '@kfx/dev-certs';
import {
  applyManifests,
  freePort,
  h2Session,
  postH1,
  postH2,
  runKubectl,
  startControlPlane,
  waitFor,
  type ControlPlane,
} from '@kfx/testenv';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDevCertificates, type DevCertificates } from '../dev-certificates.js';
import type { Plain } from '../review/plain-json.js';
import { admissionReviewFor } from '../review/review-builder.js';
import { renderWebhookConfiguration } from '../webhook-configuration.js';
import { defineMutatingWebhook } from '../webhook.js';
import { createAdmissionServer, type AdmissionServer } from './server.js';

type Pod = Plain<V1Pod>;

const labeller = defineMutatingWebhook<Pod>({
  name: 'labeller',
  path: '/mutate/labeller',
  failureMode: 'deny',
  mutate(request) {
    const pod = request.object;
    pod.metadata = { ...pod.metadata, labels: { ...pod.metadata?.labels, 'kfx.dev/seen': 'yes' } };
    return { allowed: true };
  },
});

function pod(name: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'team-a' },
    spec: { containers: [{ name: 'main', image: 'busybox' }] },
  };
}

let dir: string | undefined;
let env: ControlPlane | undefined;
let server: AdmissionServer | undefined;
let certs: DevCertificates;
let port = 0;

beforeAll(async () => {
  const folder = await mkdtemp(join(tmpdir(), 'kfx-client-auth-'));
  dir = folder;
  certs = await writeDevCertificates(join(folder, 'serving'), { ipAddresses: ['127.0.0.1'] });
  // The CA the webhook trusts for clients, and the apiserver's certificate from it.
  const clients = createCertificateAuthority({ commonName: 'kfx webhook clients CA' });
  const apiserver = clients.issue({ commonName: 'kube-apiserver', usage: 'client' });
  const file = (name: string, text: string) => writeFile(join(folder, name), text, { mode: 0o600 });
  await file('clients-ca.crt', clients.cert);
  await file('apiserver.crt', apiserver.cert);
  await file('apiserver.key', apiserver.key);
  port = await freePort();
  // The apiserver picks the kubeconfig user named after the webhook's host (and port).
  await file(
    'webhook-kubeconfig.json',
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      users: [
        {
          name: `127.0.0.1:${port}`,
          user: {
            'client-certificate': join(folder, 'apiserver.crt'),
            'client-key': join(folder, 'apiserver.key'),
          },
        },
      ],
    }),
  );
  const webhookConfiguration = (plugin: string) => ({
    name: plugin,
    configuration: {
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'WebhookAdmissionConfiguration',
      kubeConfigFile: join(folder, 'webhook-kubeconfig.json'),
    },
  });
  await file(
    'admission.json',
    JSON.stringify({
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'AdmissionConfiguration',
      plugins: [
        webhookConfiguration('MutatingAdmissionWebhook'),
        webhookConfiguration('ValidatingAdmissionWebhook'),
      ],
    }),
  );
  const plane = await startControlPlane({
    apiServerFlags: [`--admission-control-config-file=${join(folder, 'admission.json')}`],
  });
  env = plane;
  server = createAdmissionServer({
    webhooks: [labeller],
    tls: {
      certFile: certs.certFile,
      keyFile: certs.keyFile,
      clientCaFile: join(folder, 'clients-ca.crt'),
    },
    host: '127.0.0.1',
    port,
    metricsPort: false,
    registry: new Registry(),
    logger: pino({ level: 'silent' }),
  });
  await server.start();
  const configuration = renderWebhookConfiguration({
    kind: 'mutating',
    name: 'kfx-client-auth',
    namespace: 'kfx-system',
    url: `https://127.0.0.1:${port}`,
    caBundle: certs.caCert,
    webhooks: [
      {
        webhook: labeller,
        rules: [
          { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] },
        ],
        failurePolicy: 'Fail',
      },
    ],
  });
  await applyManifests(
    plane.kubeConfig,
    [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } }, configuration]
      .map((o) => JSON.stringify(o))
      .join('\n---\n'),
  );
});

afterAll(async () => {
  await server?.close();
  await env?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a webhook that serves only clients with a certificate from its client CA', () => {
  it('is called by a kube-apiserver that presents one, and the Pod is mutated', async () => {
    const plane = env;
    if (!plane) throw new Error('no control plane');
    const created = await waitFor(
      async () => {
        const answer = await runKubectl(
          plane.kubeconfigPath,
          ['create', '--dry-run=server', '-o', 'json', '-f', '-'],
          JSON.stringify(pod('probe')),
        );
        return answer.code === 0
          ? { done: true, value: JSON.parse(answer.stdout) as Pod }
          : { done: false, saw: answer.stderr };
      },
      { description: 'the apiserver to call the webhook', timeoutMs: 30_000 },
    );
    expect(created.metadata?.labels?.['kfx.dev/seen']).toBe('yes');
  });

  it('refuses the handshake of a client without one, over HTTP/1.1 and HTTP/2', async () => {
    const body = JSON.stringify(admissionReviewFor({ object: pod('tenant'), uid: 'tenant' }));
    await expect(postH1(port, '/mutate/labeller', body, { ca: certs.caCert })).rejects.toThrow(
      /certificate required|socket hang up|ECONNRESET/,
    );
    const attempt = h2Session(port, certs.caCert).then(async (session) => {
      try {
        return await postH2(session, '/mutate/labeller', body);
      } finally {
        session.destroy();
      }
    });
    await expect(attempt).rejects.toThrow();
  });
});
