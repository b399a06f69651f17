// The controller's chart rendered with the real helm binary (@kfx/testenv's), for the chart tests.
import { fileURLToPath } from 'node:url';
import type { KubeObject } from '@kfx/kube-runtime';
import { renderChart } from '@kfx/testenv';

export { helm, KUBE_VERSION } from '@kfx/testenv';
export const CHART = fileURLToPath(new URL('../../chart', import.meta.url));

/** `helm template` with these values; the rendered objects, in order. */
export async function render(
  values: Record<string, unknown> = {},
  namespace = 'kfx-system',
): Promise<KubeObject[]> {
  return await renderChart(CHART, {
    release: 'kfx-controller',
    namespace,
    values,
  });
}
