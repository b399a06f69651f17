// Putting objects into the test cluster: server-side apply of manifests (YAML or objects),
// CRDs installed and waited for until the API serves them.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  ApiextensionsV1Api,
  KubernetesObjectApi,
  PatchStrategy,
  type KubeConfig,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { waitFor } from './wait.js';

export const FIELD_MANAGER = 'kfx-testenv';

/** CRD files shipped with @kfx/testenv. */
export const CRDS = {
  kubeflowProfile: fileURLToPath(new URL('../crds/kubeflow-profile.yaml', import.meta.url)),
  kwokLogs: fileURLToPath(new URL('../crds/kwok-logs.yaml', import.meta.url)),
} as const;

export type Manifests = string | KubernetesObject | readonly KubernetesObject[];

const isList = (m: Manifests): m is readonly KubernetesObject[] => Array.isArray(m);

/** Parses YAML text (many documents) or passes objects through; empty documents are skipped. */
export function toObjects(manifests: Manifests): KubernetesObject[] {
  if (typeof manifests !== 'string') {
    return isList(manifests) ? [...manifests] : [manifests];
  }
  return parseAllDocuments(manifests).flatMap((doc, i) => {
    if (doc.errors.length > 0)
      throw new Error(`YAML document ${i + 1}: ${doc.errors[0]?.message ?? 'invalid'}`);
    const value = doc.toJS() as KubernetesObject | null;
    return value ? [value] : [];
  });
}

/** Server-side applies every object, in order, and returns what the API server stored. */
export async function applyManifests(
  kc: KubeConfig,
  manifests: Manifests,
): Promise<KubernetesObject[]> {
  const api = KubernetesObjectApi.makeApiClient(kc);
  const out: KubernetesObject[] = [];
  for (const obj of toObjects(manifests)) {
    try {
      out.push(
        await api.patch(
          obj,
          undefined,
          undefined,
          FIELD_MANAGER,
          true,
          PatchStrategy.ServerSideApply,
        ),
      );
    } catch (error) {
      const ref = `${obj.kind ?? '?'} ${obj.metadata?.namespace ? `${obj.metadata.namespace}/` : ''}${obj.metadata?.name ?? '?'}`;
      throw new Error(
        `applying ${ref} failed: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  }
  return out;
}

/** Installs CRDs from files or YAML text and waits until each is Established. */
export async function installCrds(
  kc: KubeConfig,
  sources: readonly string[],
  timeoutMs = 30_000,
): Promise<void> {
  const objects = sources.flatMap((s) => toObjects(s.includes('\n') ? s : readFileSync(s, 'utf8')));
  await applyManifests(kc, objects);
  const api = kc.makeApiClient(ApiextensionsV1Api);
  for (const crd of objects) {
    const name = crd.metadata?.name ?? '';
    await waitFor(
      async () => {
        const current = await api.readCustomResourceDefinition({ name });
        const established = current.status?.conditions?.find((c) => c.type === 'Established');
        return established?.status === 'True'
          ? { done: true, value: undefined }
          : { done: false, saw: `Established=${established?.status ?? 'absent'}` };
      },
      { description: `CRD ${name} to be Established`, timeoutMs },
    );
  }
}
