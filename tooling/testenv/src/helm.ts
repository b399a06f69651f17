// The real helm binary (built with the control plane's binaries) for chart tests: a run that
// returns its exit status and outputs (for refusals), one that throws with helm's own message,
// and `helm template` of a chart with values into the rendered objects, in order.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { requireBinaries } from './binaries.js';
import type { KubectlRun } from './objects.js';
import { parseYamlDocuments } from './yaml-documents.js';

/** `helm template` cannot ask an apiserver; the charts need 1.30+, the test bed runs 1.37. */
export const KUBE_VERSION = '1.37.0';

/** Runs helm with `args`; resolves with its exit status and outputs whatever they are. */
export async function runHelm(args: readonly string[]): Promise<KubectlRun> {
  const { helm: binary } = requireBinaries(['helm']);
  return new Promise((resolve, reject) => {
    execFile(binary, args, { maxBuffer: 32 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (!error) resolve({ code: 0, stdout, stderr });
      else if (typeof error.code === 'number') resolve({ code: error.code, stdout, stderr });
      else reject(new Error(`helm ${args.join(' ')}: ${error.message}`, { cause: error }));
    });
  });
}

/** Runs helm with `args` and resolves with stdout; a non-zero exit throws helm's message. */
export async function helm(args: readonly string[]): Promise<string> {
  const result = await runHelm(args);
  if (result.code !== 0) {
    throw new Error(`helm ${args.join(' ')} exited ${result.code}: ${result.stderr.trim()}`);
  }
  return result.stdout;
}

/** Values as YAML text or an object, written to a file for `--values` while `use` runs. */
export function withValuesFile<T>(
  values: string | object,
  use: (file: string) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'kfx-helm-values-'));
  const file = join(dir, 'values.yaml');
  writeFileSync(file, typeof values === 'string' ? values : stringify(values));
  return use(file).finally(() => {
    rmSync(dir, { recursive: true, force: true });
  });
}

export type Rendered = KubernetesObject & Record<string, unknown>;

export interface RenderOptions {
  release: string;
  namespace: string;
  values?: string | object;
}

/** `helm template` of `chart` with `values`: the rendered YAML stream as helm prints it. */
export function templateChart(chart: string, options: RenderOptions): Promise<string> {
  return withValuesFile(options.values ?? {}, (file) =>
    helm([
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
}

/** `helm template` of `chart` with `values`; the rendered objects in order. */
export async function renderChart(chart: string, options: RenderOptions): Promise<Rendered[]> {
  const stdout = await templateChart(chart, options);
  return parseYamlDocuments<Rendered>(stdout, `helm template ${options.release} ${chart}`);
}
