// The controller's chart rendered with the real helm binary (@kfx/testenv's), for the chart tests.
import { fileURLToPath } from 'node:url';
import type { KubeObject } from '@kfx/kube-runtime/client';
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

/** What the chart gives the controller's container: its memory limit and the heap flags for it. */
export async function chartMemory(
  values: Record<string, unknown> = {},
): Promise<{ limitMiB: number; nodeOptions: string }> {
  const deployment = (await render(values)).find((o) => o.kind === 'Deployment') as
    | (KubeObject & {
        spec: {
          template: {
            spec: {
              containers: {
                env?: { name: string; value?: string }[];
                resources?: { limits?: { memory?: string } };
              }[];
            };
          };
        };
      })
    | undefined;
  const container = deployment?.spec.template.spec.containers[0];
  const memory = container?.resources?.limits?.memory ?? '';
  const limitMiB = Number(/^(\d+)Mi$/.exec(memory)?.[1]);
  if (!Number.isInteger(limitMiB)) {
    throw new Error(`the chart's memory limit ${JSON.stringify(memory)} is not a whole Mi`);
  }
  const nodeOptions = container?.env?.find((e) => e.name === 'NODE_OPTIONS')?.value ?? '';
  return { limitMiB, nodeOptions };
}
