// `kfx demo load-image`: local images into the node of the cluster `kfx demo --keep` left
// running, as `kind load` does for kind, so that pods (and the charts) run them without a
// registry. The cluster is the one KUBECONFIG (or --kubeconfig) names.
import { delimiter } from 'node:path';
import { loadTestenv } from './testenv.js';

export interface LoadImagesOptions {
  /** Default: KUBECONFIG. */
  kubeconfig?: string | undefined;
  /** Image archives (OCI layout or docker-archive) or podman image references. */
  images: readonly string[];
  log: (line: string) => void;
}

export async function loadImages(options: LoadImagesOptions): Promise<void> {
  const kubeconfig = options.kubeconfig ?? process.env.KUBECONFIG;
  if (!kubeconfig) {
    throw new Error(
      'no cluster named: set KUBECONFIG to the kubeconfig `kfx demo --keep` printed, or pass --kubeconfig',
    );
  }
  if (kubeconfig.includes(delimiter)) {
    throw new Error(`KUBECONFIG names several files (${kubeconfig}): pass --kubeconfig`);
  }
  const testenv = await loadTestenv();
  const node = await testenv.clusterNodeImages(kubeconfig);
  for (const image of options.images) {
    const names = await node.loadImage(image);
    options.log(`loaded ${image} into the node as ${names.join(', ')}`);
  }
}
