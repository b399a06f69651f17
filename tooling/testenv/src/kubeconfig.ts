// Kubeconfig files for a control plane: credentials embedded, so the file alone is enough for
// kubectl, helm, kfx and the components.
import { writeFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';

export interface KubeconfigInput {
  server: string;
  caCert: string;
  user: string;
  clientCert?: string;
  clientKey?: string;
  token?: string;
  context?: string;
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

export function kubeconfigYaml(input: KubeconfigInput): string {
  const context = input.context ?? 'kfx-testenv';
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: context,
        cluster: { server: input.server, 'certificate-authority-data': b64(input.caCert) },
      },
    ],
    users: [
      {
        name: input.user,
        user: {
          ...(input.clientCert ? { 'client-certificate-data': b64(input.clientCert) } : {}),
          ...(input.clientKey ? { 'client-key-data': b64(input.clientKey) } : {}),
          ...(input.token ? { token: input.token } : {}),
        },
      },
    ],
    contexts: [{ name: context, context: { cluster: context, user: input.user } }],
    'current-context': context,
  });
}

export function writeKubeconfig(path: string, input: KubeconfigInput): KubeConfig {
  const yaml = kubeconfigYaml(input);
  writeFileSync(path, yaml, { mode: 0o600 });
  const kc = new KubeConfig();
  kc.loadFromString(yaml);
  return kc;
}
