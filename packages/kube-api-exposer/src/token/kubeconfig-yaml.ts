// The kubeconfig handed to a plugin or a person: one cluster (the exposed address and its CA),
// one user (the minted token), one context. Written owner-only, and atomically, so a reader never
// sees half a file while it is being refreshed.
import { randomBytes } from 'node:crypto';
import { chmod, rename, writeFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import { messageOf } from '@kfx/kube-runtime/serving';
import { unusableOption } from '../options-error.js';

export interface KubeconfigInput {
  server: string;
  /** PEM of the CA that signed the exposed address's certificate; omitted: system trust. */
  caPem: string | undefined;
  /** The token itself, or a file holding it (re-read by clients, so it can be refreshed). */
  credential: { token: string } | { tokenFile: string };
  namespace: string;
  /** The user and context name, e.g. `slurm-plugin@kfx-system`. */
  name: string;
  /** The cluster entry's name. */
  clusterName: string;
}

export function kubeconfigYaml(input: KubeconfigInput): string {
  const cluster: Record<string, string> = { server: input.server };
  if (input.caPem !== undefined) {
    cluster['certificate-authority-data'] = Buffer.from(input.caPem).toString('base64');
  }
  return stringify(
    {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: input.clusterName, cluster }],
      users: [
        {
          name: input.name,
          user:
            'token' in input.credential
              ? { token: input.credential.token }
              : { tokenFile: input.credential.tokenFile },
        },
      ],
      contexts: [
        {
          name: input.name,
          context: { cluster: input.clusterName, user: input.name, namespace: input.namespace },
        },
      ],
      'current-context': input.name,
      preferences: {},
    },
    { lineWidth: 0 },
  );
}

/** Writes a secret-bearing file readable by its owner only, replacing any previous one at once. */
export async function writePrivateFile(
  path: string,
  content: string,
  option: string,
): Promise<void> {
  const temporary = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, content, { mode: 0o600 });
    await chmod(temporary, 0o600);
    await rename(temporary, path);
  } catch (error) {
    throw unusableOption(
      'mintKubeconfig',
      option,
      `${path} cannot be written: ${messageOf(error)}`,
      error,
    );
  }
}
