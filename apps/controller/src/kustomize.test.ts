// The kustomize base under kustomize/ is the chart rendered by `helm template` with its default
// values in the namespace kubeflow: `pnpm run kustomize` (vitest --update) rewrites the rendered
// files, otherwise a difference fails here. Then what `kubectl kustomize` builds from them.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildKustomization, renderBaseDocuments, yamlStream } from '@kfx/testenv';
import { describe, expect, it } from 'vitest';

const chart = fileURLToPath(new URL('../chart', import.meta.url));
const kustomize = fileURLToPath(new URL('../kustomize', import.meta.url));
const HEADER =
  '# Rendered from apps/controller/chart by `pnpm --filter @kfx/controller-app run kustomize`: edit\n# the chart or src/kustomize.test.ts, not this file.\n';

/** Every rendered file of kustomize/, by path, from the chart. */
async function renderFiles(): Promise<Record<string, string>> {
  const docs = await renderBaseDocuments(chart, {
    release: 'kfx-controller',
    namespace: 'kubeflow',
  });
  // The configuration becomes a file of the base's configMapGenerator: a user replaces it, and a
  // new one rolls the Pods through its name's hash (the chart's checksum annotation would lie).
  const configMap = docs.find((d) => d.kind === 'ConfigMap');
  const config = configMap?.document.getIn(['data', 'controller.yaml']);
  if (typeof config !== 'string') throw new Error('the chart rendered no controller.yaml');
  for (const { kind, document } of docs) {
    if (kind === 'Deployment') {
      document.deleteIn(['spec', 'template', 'metadata', 'annotations', 'checksum/config']);
    }
  }
  return {
    'base/kfx-controller.yaml': HEADER + yamlStream(docs.filter((d) => d !== configMap)),
    'base/controller.yaml': config,
  };
}

describe('the kustomize base of kfx-controller', () => {
  it('holds the chart rendered with its defaults (pnpm run kustomize rewrites it)', async () => {
    for (const [file, text] of Object.entries(await renderFiles())) {
      await expect(text, `kustomize/${file}`).toMatchFileSnapshot(join(kustomize, file));
    }
  });

  it('builds the objects without Helm’s labels, the configuration from controller.yaml', async () => {
    const objects = await buildKustomization(join(kustomize, 'base'));
    expect(objects.map((o) => o.kind).sort()).toEqual([
      'ClusterRole',
      'ClusterRoleBinding',
      'ConfigMap',
      'Deployment',
      'PodDisruptionBudget',
      'Role',
      'RoleBinding',
      'Service',
      'ServiceAccount',
    ]);
    for (const object of objects) {
      expect(object.metadata?.namespace ?? 'kubeflow', object.kind).toBe('kubeflow');
      expect(object.metadata?.labels?.['helm.sh/chart'], object.kind).toBeUndefined();
      expect(
        object.metadata?.labels?.['app.kubernetes.io/managed-by'],
        object.kind,
      ).toBeUndefined();
    }
    const config = objects.find((o) => o.kind === 'ConfigMap');
    expect(config?.metadata?.name).toMatch(/^kfx-controller-[a-z0-9]{10}$/);
    const deployment = objects.find((o) => o.kind === 'Deployment');
    expect(JSON.stringify(deployment?.spec)).toContain(
      `"configMap":{"name":"${config?.metadata?.name ?? ''}"}`,
    );
    expect(JSON.stringify(deployment?.spec)).not.toContain('checksum/config');
  });
});
