// The real helm binary (built by @kfx/testenv) on the two charts: template, install, upgrade,
// uninstall. Results are returned, not thrown, so that tests can assert on refusals; `helmOk`
// throws with helm's own message when a step that must work does not.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubernetesObject } from '@kubernetes/client-node';
import { ensureBinaries } from '@kfx/testenv';
import { parseAllDocuments, stringify } from 'yaml';
import type { Completed } from './apps.js';

export const CHARTS = {
  webhook: fileURLToPath(new URL('../../../apps/webhook/chart', import.meta.url)),
  controller: fileURLToPath(new URL('../../../apps/controller/chart', import.meta.url)),
} as const;

/** `helm template` cannot ask an apiserver; the charts need 1.30+, the test bed runs 1.37. */
export const KUBE_VERSION = '1.37.0';

export async function helm(args: readonly string[]): Promise<Completed> {
  const { helm: binary } = await ensureBinaries(['helm']);
  return new Promise((resolve) => {
    execFile(binary, args, { maxBuffer: 32 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

export async function helmOk(args: readonly string[]): Promise<string> {
  const result = await helm(args);
  if (result.code !== 0) {
    throw new Error(`helm ${args.join(' ')} exited ${result.code}: ${result.stderr.trim()}`);
  }
  return result.stdout;
}

/** Values as YAML text (e.g. a guide's block) or an object, written to a file for --values. */
export function withValuesFile<T>(values: string | object, use: (file: string) => Promise<T>) {
  const dir = mkdtempSync(join(tmpdir(), 'kfx-e2e-values-'));
  const file = join(dir, 'values.yaml');
  writeFileSync(file, typeof values === 'string' ? values : stringify(values));
  return use(file).finally(() => {
    rmSync(dir, { recursive: true, force: true });
  });
}

export type Rendered = KubernetesObject & Record<string, unknown>;

/** `helm template` of `chart` with `values`; the rendered objects in order. */
export async function renderChart(
  chart: string,
  options: { release: string; namespace: string; values?: string | object },
): Promise<Rendered[]> {
  const stdout = await withValuesFile(options.values ?? {}, (file) =>
    helmOk([
      'template',
      options.release,
      chart,
      '--namespace',
      options.namespace,
      '--kube-version',
      KUBE_VERSION,
      '--values',
      file,
    ]),
  );
  return parseAllDocuments(stdout)
    .map((document) => document.toJS() as Rendered | null)
    .filter((object): object is Rendered => object !== null);
}

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
