// Container images without a registry or a container engine: an OCI image-layout archive (one
// uncompressed layer) written from a list of files, which containerd imports as it is. Enough
// for the small images the tests run on the real node: the pause image, a static shell with a
// script, a static test client.
import { createHash } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';

export type ImageEntry =
  | { path: string; type?: 'file'; content: string | Buffer; mode?: number }
  /** A file copied from the host, keeping its mode unless one is given. */
  | { path: string; type: 'copy'; source: string; mode?: number }
  | { path: string; type: 'dir'; mode?: number }
  | { path: string; type: 'symlink'; target: string };

export interface ImageSpec {
  /** Full reference, e.g. `kfx.test/pause:1`. */
  name: string;
  entries: readonly ImageEntry[];
  entrypoint?: readonly string[] | undefined;
  cmd?: readonly string[] | undefined;
  env?: readonly string[] | undefined;
  workingDir?: string | undefined;
  /** `uid[:gid]`. */
  user?: string | undefined;
}

const BLOCK = 512;

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

/** One ustar header; names longer than 100 bytes go into the prefix field. */
function header(name: string, size: number, mode: number, typeflag: string, linkname = ''): Buffer {
  const block = Buffer.alloc(BLOCK);
  let prefix = '';
  let base = name;
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf('/', 155);
    if (cut <= 0 || Buffer.byteLength(name.slice(cut + 1)) > 100) {
      throw new Error(`image entry ${name}: the path is too long for a tar header`);
    }
    prefix = name.slice(0, cut);
    base = name.slice(cut + 1);
  }
  block.write(base, 0, 100);
  block.write(octal(mode & 0o7777, 8), 100);
  block.write(octal(0, 8), 108);
  block.write(octal(0, 8), 116);
  block.write(octal(size, 12), 124);
  block.write(octal(0, 12), 136);
  block.write('        ', 148);
  block.write(typeflag, 156);
  block.write(linkname, 157, 100);
  block.write('ustar\0', 257);
  block.write('00', 263);
  block.write(prefix, 345, 155);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return block;
}

function pad(size: number): Buffer {
  return Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);
}

interface TarFile {
  name: string;
  content?: Buffer;
  mode?: number;
  type?: 'file' | 'dir' | 'symlink';
  target?: string;
}

/** A tar archive of `files`, in order. */
function tar(files: readonly TarFile[]): Buffer {
  const parts: Buffer[] = [];
  for (const file of files) {
    const type = file.type ?? 'file';
    if (type === 'dir') {
      parts.push(header(`${file.name.replace(/\/$/, '')}/`, 0, file.mode ?? 0o755, '5'));
    } else if (type === 'symlink') {
      parts.push(header(file.name, 0, 0o777, '2', file.target ?? ''));
    } else {
      const content = file.content ?? Buffer.alloc(0);
      parts.push(header(file.name, content.length, file.mode ?? 0o644, '0'), content);
      parts.push(pad(content.length));
    }
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}

const digest = (data: Buffer) => `sha256:${createHash('sha256').update(data).digest('hex')}`;

/** The layer: every entry, with the parent folders it needs, relative to `/`. */
function layer(entries: readonly ImageEntry[]): Buffer {
  const files: TarFile[] = [];
  const dirs = new Set<string>();
  const parents = (path: string) => {
    const parts = path.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (dir && !dirs.has(dir)) {
        dirs.add(dir);
        files.push({ name: dir, type: 'dir' });
      }
    }
  };
  for (const entry of entries) {
    const name = entry.path.replace(/^\/+/, '');
    if (!name) throw new Error(`image entry ${entry.path}: an empty path`);
    parents(name);
    if (entry.type === 'dir') {
      if (!dirs.has(name)) files.push({ name, type: 'dir', mode: entry.mode ?? 0o755 });
      dirs.add(name);
    } else if (entry.type === 'symlink') {
      files.push({ name, type: 'symlink', target: entry.target });
    } else if (entry.type === 'copy') {
      const mode = entry.mode ?? statSync(entry.source).mode;
      files.push({ name, content: readFileSync(entry.source), mode });
    } else {
      const content = Buffer.isBuffer(entry.content) ? entry.content : Buffer.from(entry.content);
      files.push({ name, content, mode: entry.mode ?? 0o644 });
    }
  }
  return tar(files);
}

/** Writes `spec` as an OCI image-layout archive at `path`, for `ctr images import`. */
export function writeImageArchive(path: string, spec: ImageSpec): void {
  const layerTar = layer(spec.entries);
  const config = Buffer.from(
    JSON.stringify({
      architecture: 'amd64',
      os: 'linux',
      config: {
        ...(spec.entrypoint ? { Entrypoint: spec.entrypoint } : {}),
        ...(spec.cmd ? { Cmd: spec.cmd } : {}),
        Env: spec.env ?? ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'],
        ...(spec.workingDir ? { WorkingDir: spec.workingDir } : {}),
        ...(spec.user ? { User: spec.user } : {}),
      },
      rootfs: { type: 'layers', diff_ids: [digest(layerTar)] },
    }),
  );
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: {
        mediaType: 'application/vnd.oci.image.config.v1+json',
        digest: digest(config),
        size: config.length,
      },
      layers: [
        {
          mediaType: 'application/vnd.oci.image.layer.v1.tar',
          digest: digest(layerTar),
          size: layerTar.length,
        },
      ],
    }),
  );
  const index = {
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.index.v1+json',
    manifests: [
      {
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        digest: digest(manifest),
        size: manifest.length,
        annotations: { 'io.containerd.image.name': spec.name },
      },
    ],
  };
  const blob = (data: Buffer): TarFile => ({
    name: `blobs/sha256/${digest(data).slice('sha256:'.length)}`,
    content: data,
  });
  writeFileSync(
    path,
    tar([
      { name: 'oci-layout', content: Buffer.from('{"imageLayoutVersion":"1.0.0"}') },
      { name: 'index.json', content: Buffer.from(JSON.stringify(index)) },
      { name: 'blobs', type: 'dir' },
      { name: 'blobs/sha256', type: 'dir' },
      blob(config),
      blob(manifest),
      blob(layerTar),
    ]),
  );
}
