// What an operator brings for the webhook chart's `tls.mode: secret`: a serving certificate for
// the webhook Service's names in a kubernetes.io/tls Secret, and the CA that signed it (the
// chart's tls.caBundle).
import type { KubernetesObject } from '@kubernetes/client-node';
import { createCertificateAuthority } from '@kfx/dev-certs';
import { applyManifests } from '@kfx/testenv';

export async function createServingSecret(
  kubeconfigPath: string,
  options: { name: string; namespace: string; service: string },
): Promise<{ caCert: string }> {
  const ca = createCertificateAuthority({ commonName: 'kfx e2e webhook CA' });
  const host = `${options.service}.${options.namespace}.svc`;
  const serving = ca.issue({ commonName: host, dnsNames: [host, `${host}.cluster.local`] });
  await applyManifests(kubeconfigPath, {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/tls',
    metadata: { name: options.name, namespace: options.namespace },
    data: {
      'tls.crt': Buffer.from(serving.cert).toString('base64'),
      'tls.key': Buffer.from(serving.key).toString('base64'),
    },
  } as KubernetesObject);
  return { caCert: ca.cert };
}
