// Every object the API server holds, by identity (resource, namespace, name), across every kind
// it serves (discovery through kubectl api-resources, so CRDs count too). Comparing the
// inventory before an install and after an uninstall shows what a release left behind.
import { setTimeout as sleep } from 'node:timers/promises';
import { kubectl as kubectlOk } from '@kfx/testenv';

/** Kinds that are records of what happened, not objects anyone installs: they expire on a TTL. */
export const RECORD_RESOURCES = ['events', 'events.events.k8s.io'] as const;

interface Listed {
  items: { kind?: string; apiVersion?: string; metadata?: { name?: string; namespace?: string } }[];
}

/** Sorted identities `Kind.group namespace/name` (cluster-scoped: `Kind.group /name`). */
export async function inventory(
  kubeconfigPath: string,
  options: { exclude?: readonly string[] } = {},
): Promise<string[]> {
  const excluded = new Set([...RECORD_RESOURCES, ...(options.exclude ?? [])]);
  const names = (await kubectlOk(kubeconfigPath, ['api-resources', '--verbs=list', '-o', 'name']))
    .split('\n')
    .map((name) => name.trim())
    .filter((name) => name !== '' && !excluded.has(name));
  const listed = JSON.parse(
    await kubectlOk(kubeconfigPath, ['get', names.join(','), '--all-namespaces', '-o', 'json']),
  ) as Listed;
  return listed.items
    .map((item) => {
      const group = (item.apiVersion ?? '').includes('/')
        ? `.${item.apiVersion?.split('/')[0] ?? ''}`
        : '';
      return `${item.kind ?? '?'}${group} ${item.metadata?.namespace ?? ''}/${item.metadata?.name ?? '?'}`;
    })
    .sort();
}

/**
 * The inventory once two readings a second apart agree: right after a control plane starts,
 * kube-controller-manager is still adding ServiceAccounts and CA ConfigMaps to namespaces, and a
 * "before" taken in the middle of that would report them as left behind.
 */
export async function settledInventory(kubeconfigPath: string): Promise<string[]> {
  let previous = await inventory(kubeconfigPath);
  for (let reading = 0; reading < 30; reading++) {
    await sleep(1000);
    const current = await inventory(kubeconfigPath);
    if (current.join('\n') === previous.join('\n')) return current;
    previous = current;
  }
  throw new Error('the cluster did not settle within 30 s: its objects kept changing');
}

/** What `after` has that `before` had not, and what it lost. */
export function difference(
  before: readonly string[],
  after: readonly string[],
): { added: string[]; removed: string[] } {
  const had = new Set(before);
  const has = new Set(after);
  return {
    added: after.filter((id) => !had.has(id)),
    removed: before.filter((id) => !has.has(id)),
  };
}
