// Renders the chart with the real helm binary, for the chart tests.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { KubeObject } from '@kfx/kube-runtime';
import { ensureBinaries } from '@kfx/testenv';
import { parseAllDocuments, stringify } from 'yaml';

const run = promisify(execFile);
export const CHART = fileURLToPath(new URL('../../chart', import.meta.url));
export const KUBE_VERSION = '1.37.0';

export async function helm(args: string[]): Promise<{ stdout: string; stderr: string }> {
  const { helm: binary } = await ensureBinaries(['helm']);
  return run(binary, args, { maxBuffer: 16 * 1024 * 1024 });
}

/** A values file holding `values`, for `--values`. */
export function valuesFile(values: Record<string, unknown>): string {
  const path = join(mkdtempSync(join(tmpdir(), 'kfx-chart-')), 'values.yaml');
  writeFileSync(path, stringify(values));
  return path;
}

/** `helm template` with these values; the rendered objects, in order. */
export async function render(
  values: Record<string, unknown> = {},
  namespace = 'kfx-system',
): Promise<KubeObject[]> {
  const { stdout } = await helm([
    'template',
    'kfx-controller',
    CHART,
    '--namespace',
    namespace,
    '--kube-version',
    KUBE_VERSION,
    '--values',
    valuesFile(values),
  ]);
  return parseAllDocuments(stdout)
    .map((document) => document.toJS() as KubeObject | null)
    .filter((object): object is KubeObject => object !== null);
}
