// What a Helm release put into the cluster, and proof that an uninstall took it all back out.
import { parseYamlDocuments, waitFor } from '@kfx/testenv';
import { helmOk } from './helm.js';
import { difference, inventory } from './inventory.js';

interface ManifestObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string };
}

/** Identities (as `inventory` writes them) of every object in the release's manifest. */
export async function installedObjects(
  kubeconfigPath: string,
  release: string,
  namespace: string,
): Promise<string[]> {
  const manifest = await helmOk([
    'get',
    'manifest',
    release,
    '--namespace',
    namespace,
    '--kubeconfig',
    kubeconfigPath,
  ]);
  return parseYamlDocuments<ManifestObject>(manifest, `helm get manifest ${release}`).map(
    (object) => {
      const apiVersion = object.apiVersion ?? '';
      const group = apiVersion.includes('/') ? `.${apiVersion.split('/')[0] ?? ''}` : '';
      return `${object.kind ?? '?'}${group} ${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? '?'}`;
    },
  );
}

/** The release's current revision number. */
export async function releaseRevision(
  kubeconfigPath: string,
  release: string,
  namespace: string,
): Promise<number> {
  const status = JSON.parse(
    await helmOk([
      'status',
      release,
      '--namespace',
      namespace,
      '--kubeconfig',
      kubeconfigPath,
      '-o',
      'json',
    ]),
  ) as { version: number };
  return status.version;
}

/**
 * Waits until the cluster holds exactly the objects of `before` again (garbage collection of
 * ReplicaSets, Pods and EndpointSlices takes a moment after `helm uninstall`); a timeout lists
 * what is still there and what went missing.
 */
export async function waitForNothingLeft(
  kubeconfigPath: string,
  before: readonly string[],
): Promise<void> {
  await waitFor(
    async () => {
      const { added, removed } = difference(before, await inventory(kubeconfigPath));
      return added.length === 0 && removed.length === 0
        ? { done: true, value: undefined }
        : {
            done: false,
            saw: `left behind: ${added.join(', ') || 'none'}; gone: ${removed.join(', ') || 'none'}`,
          };
    },
    {
      description: 'the cluster to hold what it held before the install',
      timeoutMs: 90_000,
      intervalMs: 1000,
    },
  );
}
