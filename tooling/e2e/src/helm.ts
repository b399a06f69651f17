// The two charts for the e2e tests, and helm from @kfx/testenv under the names these tests use:
// `helm` returns the result (for refusals), `helmOk` throws with helm's own message.
import { fileURLToPath } from 'node:url';
import type { Rendered } from '@kfx/testenv';

export {
  helm as helmOk,
  KUBE_VERSION,
  renderChart,
  runHelm as helm,
  withValuesFile,
  type Rendered,
} from '@kfx/testenv';

export const CHARTS = {
  webhook: fileURLToPath(new URL('../../../apps/webhook/chart', import.meta.url)),
  controller: fileURLToPath(new URL('../../../apps/controller/chart', import.meta.url)),
} as const;

/** The one rendered object of `kind` (whose name ends with `suffix`), or an error naming it. */
export function findRendered(objects: readonly Rendered[], kind: string, suffix = ''): Rendered {
  const found = objects.find((o) => o.kind === kind && (o.metadata?.name ?? '').endsWith(suffix));
  if (!found) {
    const kinds = objects.map((o) => `${o.kind ?? '?'}/${o.metadata?.name ?? '?'}`).join(', ');
    throw new Error(
      `the chart rendered no ${kind}${suffix ? ` *${suffix}` : ''} (it rendered ${kinds})`,
    );
  }
  return found;
}
