// The remote node's images: the same archives tests load into the real node (an OCI image
// layout, as writeShellImage writes, or a docker archive, as podman saves), unpacked once into a
// root filesystem per image and found by name as a container runtime finds them (`busybox` is
// docker.io/library/busybox:latest). Nothing is ever pulled: a missing image is an error that
// names it.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What the runtime takes from an image's configuration. */
export interface ImageConfig {
  entrypoint: string[];
  cmd: string[];
  env: string[];
  workingDir: string;
}

export interface UnpackedImage {
  names: string[];
  rootfs: string;
  config: ImageConfig;
}

/** A reference as a runtime resolves it: registry, repository and tag (or digest) made explicit. */
export function normalizeImageName(reference: string): string {
  const [path = '', digest] = reference.split('@');
  const parts = path.split('/');
  const first = parts[0] ?? '';
  const hasDomain = parts.length > 1 && (/[.:]/.test(first) || first === 'localhost');
  const named = hasDomain ? path : `docker.io/${parts.length === 1 ? `library/${path}` : path}`;
  if (digest) return `${named}@${digest}`;
  const last = named.split('/').pop() ?? '';
  return last.includes(':') ? named : `${named}:latest`;
}

/** The names an image answers to: its own, and `docker.io/x` for podman's `localhost/x`. */
function imageAliases(name: string): string[] {
  const normal = normalizeImageName(name);
  return normal.startsWith('localhost/')
    ? [normal, `docker.io/${normal.slice('localhost/'.length)}`]
    : [normal];
}

interface Manifest {
  names: string[];
  config: string;
  layers: string[];
}

const blobPath = (digest: string) => join('blobs', ...digest.split(':'));

/** The images an unpacked archive holds: OCI layout (index.json) or docker (manifest.json). */
function manifests(dir: string): Manifest[] {
  const read = (path: string): unknown => JSON.parse(readFileSync(join(dir, path), 'utf8'));
  if (existsSync(join(dir, 'index.json'))) {
    interface Descriptor {
      digest: string;
      annotations?: Record<string, string>;
    }
    const index = read('index.json') as { manifests?: Descriptor[] };
    return (index.manifests ?? []).map((descriptor) => {
      const manifest = read(blobPath(descriptor.digest)) as {
        config: Descriptor;
        layers: Descriptor[];
      };
      const name =
        descriptor.annotations?.['io.containerd.image.name'] ??
        descriptor.annotations?.['org.opencontainers.image.ref.name'];
      return {
        names: name ? [name] : [],
        config: blobPath(manifest.config.digest),
        layers: manifest.layers.map((layer) => blobPath(layer.digest)),
      };
    });
  }
  if (existsSync(join(dir, 'manifest.json'))) {
    const list = read('manifest.json') as {
      Config: string;
      RepoTags?: string[];
      Layers: string[];
    }[];
    return list.map((m) => ({ names: m.RepoTags ?? [], config: m.Config, layers: m.Layers }));
  }
  throw new Error('neither an OCI image layout (index.json) nor a docker archive (manifest.json)');
}

/** Applies a layer's whiteouts (`.wh.<name>`, `.wh..wh..opq`) to what lower layers left. */
async function applyWhiteouts(layer: string, rootfs: string): Promise<void> {
  const { stdout } = await run('tar', ['-tf', layer], { maxBuffer: 64 * 1024 * 1024 });
  for (const entry of stdout.split('\n')) {
    const name = entry.replace(/^\.?\/+/, '');
    const base = name.split('/').pop() ?? '';
    if (base === '.wh..wh..opq') {
      const folder = join(rootfs, dirname(name));
      rmSync(folder, { recursive: true, force: true });
      mkdirSync(folder, { recursive: true });
    } else if (base.startsWith('.wh.')) {
      rmSync(join(rootfs, dirname(name), base.slice('.wh.'.length)), {
        recursive: true,
        force: true,
      });
    }
  }
}

/** Unpacks every image of `archive` under `storeDir`; resolves with them. */
async function unpackArchive(archive: string, storeDir: string): Promise<UnpackedImage[]> {
  mkdirSync(storeDir, { recursive: true });
  const scratch = mkdtempSync(join(storeDir, 'kfx-archive-'));
  try {
    await run('tar', ['-xf', archive, '-C', scratch]);
    const found: UnpackedImage[] = [];
    for (const manifest of manifests(scratch)) {
      const id = createHash('sha256').update(manifest.config).digest('hex').slice(0, 16);
      const rootfs = join(storeDir, id, 'rootfs');
      rmSync(dirname(rootfs), { recursive: true, force: true });
      mkdirSync(rootfs, { recursive: true });
      for (const layer of manifest.layers) {
        await applyWhiteouts(join(scratch, layer), rootfs);
        // GNU tar recognises a compressed layer by itself; as root it keeps owners and modes.
        await run('tar', ['-xf', join(scratch, layer), '-C', rootfs, '--exclude=.wh.*']);
      }
      const { config = {} } = JSON.parse(readFileSync(join(scratch, manifest.config), 'utf8')) as {
        config?: { Entrypoint?: string[]; Cmd?: string[]; Env?: string[]; WorkingDir?: string };
      };
      found.push({
        names: manifest.names.flatMap(imageAliases),
        rootfs,
        config: {
          entrypoint: config.Entrypoint ?? [],
          cmd: config.Cmd ?? [],
          env: config.Env ?? [],
          workingDir: config.WorkingDir ?? '',
        },
      });
    }
    return found;
  } catch (error) {
    throw new Error(`cannot load ${archive}: ${(error as Error).message}`, { cause: error });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

export interface ImageStore {
  /** Unpacks an archive; resolves with the names its images answer to. */
  load(archive: string): Promise<string[]>;
  /** The image a container names, or undefined. */
  find(reference: string): UnpackedImage | undefined;
  names(): string[];
}

export function imageStore(dir: string): ImageStore {
  const byName = new Map<string, UnpackedImage>();
  return {
    async load(archive) {
      const images = await unpackArchive(archive, dir);
      if (!images.some((image) => image.names.length > 0)) {
        throw new Error(`cannot load ${archive}: the archive held no named image`);
      }
      for (const image of images) for (const name of image.names) byName.set(name, image);
      return images.flatMap((image) => image.names);
    },
    find: (reference) => byName.get(normalizeImageName(reference)),
    names: () => [...byName.keys()],
  };
}
