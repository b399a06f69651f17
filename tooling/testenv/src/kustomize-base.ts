// A chart rendered for a kustomize base: `helm template`'s documents with the chart's comments
// kept and Helm's own labels (helm.sh/chart, app.kubernetes.io/managed-by: Helm) removed, since
// kubectl, not Helm, manages what a base makes. The caller picks which documents go to which file;
// `kubectl kustomize` then builds what a user's kustomization makes of them.
import { execFile } from 'node:child_process';
import { parseAllDocuments, type Document } from 'yaml';
import { requireBinaries } from './binaries.js';
import { templateChart, type Rendered, type RenderOptions } from './helm.js';
import { parseYamlDocuments } from './yaml-documents.js';

const HELM_LABELS = ['helm.sh/chart', 'app.kubernetes.io/managed-by'];

/** One rendered object: its kind and name, and the document to edit and print. */
export interface BaseDocument {
  kind: string;
  name: string;
  document: Document;
}

/** The chart's objects as `helm template` renders them, without Helm's labels. */
export async function renderBaseDocuments(
  chart: string,
  options: RenderOptions,
): Promise<BaseDocument[]> {
  const text = await templateChart(chart, options);
  return parseAllDocuments(text).flatMap((document, index) => {
    const error = document.errors[0];
    if (error) throw new Error(`${chart}: YAML document ${index + 1}: ${error.message}`);
    const kind = document.get('kind');
    const name = document.getIn(['metadata', 'name']);
    if (typeof kind !== 'string' || typeof name !== 'string') return []; // comment-only
    for (const label of HELM_LABELS) document.deleteIn(['metadata', 'labels', label]);
    document.directives.docStart = null; // yamlStream writes the separators

    return [{ kind, name, document }];
  });
}

/** The documents as one YAML stream, in order. */
export function yamlStream(documents: readonly BaseDocument[]): string {
  return documents
    .map(({ document }) => document.toString({ lineWidth: 0, flowCollectionPadding: false }))
    .join('---\n');
}

/** `kubectl kustomize` of a folder: the objects `kubectl apply -k` would send, in order. */
export async function buildKustomization(folder: string): Promise<Rendered[]> {
  const { kubectl } = requireBinaries(['kubectl']);
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(kubectl, ['kustomize', folder], { maxBuffer: 32 * 1024 * 1024 }, (error, out, err) => {
      if (error) reject(new Error(`kubectl kustomize ${folder}: ${err.trim() || error.message}`));
      else resolve(out);
    });
  });
  return parseYamlDocuments<Rendered>(stdout, `kubectl kustomize ${folder}`);
}
