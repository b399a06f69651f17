// `renderManifests` (`kfx expose-api manifests`): what a cluster needs to run the proxy — ServiceAccount,
// Deployment, Service (LoadBalancer, NodePort, or ClusterIP behind an Ingress), cert-manager
// issuer and Certificate with the external addresses in the SANs — as YAML or as a Helm chart.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { messageOf } from '@kfx/kube-runtime/serving';
import packageJson from '../../package.json' with { type: 'json' };
import { helmChart } from '../manifests/helm-chart.js';
import { manifestObjects, toYaml } from '../manifests/render.js';
import { manifestSettings, type RenderManifestsOptions } from './manifests-options.js';
import { unusableOption } from '../options-error.js';

export type { RenderManifestsOptions } from './manifests-options.js';

export interface RenderedManifests {
  /** The objects, in apply order (also for `format: 'helm'`, as the chart's default values render). */
  objects: object[];
  /** The YAML stream (`format: 'yaml'`). */
  yaml: string | undefined;
  /** Chart files by relative path (`format: 'helm'`). */
  files: Record<string, string> | undefined;
  /** Paths written, when `output` was given. */
  written: string[];
}

export async function renderManifests(options: RenderManifestsOptions): Promise<RenderedManifests> {
  const { settings, format, output } = manifestSettings(options);
  const objects = manifestObjects(settings);
  const written: string[] = [];
  const write = async (path: string, content: string) => {
    try {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, content);
    } catch (error) {
      throw unusableOption(
        'renderManifests',
        'output',
        `cannot write ${path}: ${messageOf(error)}`,
        error,
      );
    }
    written.push(path);
  };
  if (format === 'helm') {
    const files = helmChart(settings, { version: packageJson.version });
    for (const [path, content] of Object.entries(files))
      await write(join(output ?? '.', path), content);
    return { objects, yaml: undefined, files, written };
  }
  const yaml = toYaml(objects);
  if (output !== undefined) await write(output, yaml);
  return { objects, yaml, files: undefined, written };
}
