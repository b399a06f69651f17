// Loading local images into a real node, as `kind load` does for kind: an image archive (OCI
// layout or docker-archive) or an image from podman's storage, imported into the node's
// containerd, where pods find it without a registry. podman names the images it builds
// `localhost/<name>`; the node gets each also as `<name>` (docker.io/<name>), the reference a
// manifest or a chart means by an unqualified `kfx/webhook:0.1.0`. Works for a plane of this
// process and, from its kubeconfig, for one another process keeps running (`kfx demo --keep`).
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { containerdPaths, ctr, importArchive, type ContainerdPaths } from './containerd.js';

const exec = promisify(execFile);

export interface NodeImages {
  /**
   * Imports an image: an archive, or a podman image reference (saved from podman's storage with
   * all its names). `name` also tags it under that reference. Resolves with the node's names.
   */
  loadImage(source: string, options?: { name?: string }): Promise<string[]>;
  /** The node's images, by reference. */
  images(): Promise<string[]>;
}

/** The node's containerd, under the control plane's folder. */
export function nodeContainerd(controlPlaneDir: string): ContainerdPaths {
  return containerdPaths(join(controlPlaneDir, 'node', 'containerd'));
}

/** `localhost/x:t` → `docker.io/x:t`: what an unqualified `x:t` in a pod spec resolves to. */
function unqualifiedName(name: string): string | undefined {
  return name.startsWith('localhost/') ? `docker.io/${name.slice('localhost/'.length)}` : undefined;
}

async function podmanNames(reference: string): Promise<string[]> {
  const { stdout } = await exec('podman', [
    'image',
    'inspect',
    '--format',
    '{{range .RepoTags}}{{println .}}{{end}}',
    reference,
  ]);
  return stdout.split('\n').filter(Boolean);
}

async function podmanSave(reference: string, archive: string): Promise<string[]> {
  try {
    const names = await podmanNames(reference);
    await exec('podman', ['save', '--format', 'docker-archive', '-o', archive, reference]);
    return names;
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(
      `cannot load ${reference}: not a file, and podman cannot save it: ${(e.stderr ?? e.message).trim()}`,
      { cause: error },
    );
  }
}

export function nodeImages(paths: ContainerdPaths): NodeImages {
  return {
    async loadImage(source, options = {}) {
      let archive = source;
      let extra: string[] = [];
      const scratch = existsSync(source) ? undefined : mkdtempSync(join(tmpdir(), 'kfx-image-'));
      try {
        if (scratch) {
          archive = join(scratch, 'image.tar');
          extra = await podmanSave(source, archive);
        }
        const names = await importArchive(paths, archive);
        const first = names[0];
        if (!first) throw new Error(`cannot load ${source}: the archive held no named image`);
        const wanted = [...names, ...extra, ...(options.name ? [options.name] : [])];
        const all = [...new Set(wanted.flatMap((n) => [n, unqualifiedName(n) ?? n]))];
        for (const name of all.filter((n) => !names.includes(n))) {
          await ctr(paths, ['images', 'tag', '--force', first, name]);
        }
        return all;
      } finally {
        if (scratch) rmSync(scratch, { recursive: true, force: true });
      }
    },
    images: async () =>
      (await ctr(paths, ['images', 'ls', '-q']))
        .split('\n')
        .filter((l) => l && !l.startsWith('sha256:')),
  };
}

/**
 * The images of the real node of a control plane that another process runs (a kept demo),
 * found from its kubeconfig. Throws, naming the file, when it is not such a plane's.
 */
export async function clusterNodeImages(kubeconfigPath: string): Promise<NodeImages> {
  const paths = nodeContainerd(dirname(kubeconfigPath));
  const problem = `${kubeconfigPath} is not the kubeconfig of a running kfx control plane with a real node`;
  if (!existsSync(paths.socket)) throw new Error(`${problem} (no ${paths.socket})`);
  try {
    await ctr(paths, ['version']);
  } catch (error) {
    throw new Error(`${problem}: its containerd does not answer (${(error as Error).message})`, {
      cause: error,
    });
  }
  return nodeImages(paths);
}
