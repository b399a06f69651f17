// A local folder packed as a tar.gz small enough for one Secret, for a suite whose files are on
// the CI machine rather than in its image or a repository. A Secret rather than a ConfigMap: the
// runner may already create and delete Secrets (RBAC and the admission policy of `kfx uat rbac`
// stay as they are), and suites often hold credentials. The API server refuses a Secret whose data
// exceed 1 MiB, so a larger folder is an input error that names the folder and the limit, found
// before anything is created. Folders that are never part of a suite's sources (version control,
// caches, virtual environments) are left out. Plain ustar, written here: names up to 255 bytes.
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { UatInputError } from '../base/outcome.js';

/** What the API server lets one Secret hold (the sum of its data). */
const SECRET_DATA_LIMIT = 1024 * 1024;
/** Read no more than this before compressing: such a folder cannot fit in any case. */
const RAW_LIMIT = 32 * 1024 * 1024;
/** Left out wherever they are in the folder. */
const SKIPPED = ['.git', '__pycache__', '.pytest_cache', '.venv', '.tox', 'node_modules'];

export interface PackedFolder {
  archive: Buffer;
  files: number;
  bytes: number;
}

interface Entry {
  name: string;
  type: 'file' | 'dir' | 'symlink';
  mode: number;
  mtime: number;
  content?: Buffer;
  target?: string;
}

export function packFolder(folder: string, flag = '--suite-dir'): PackedFolder {
  let root;
  try {
    root = lstatSync(folder);
  } catch {
    throw new UatInputError(`${flag}: ${folder} does not exist`);
  }
  if (!root.isDirectory()) throw new UatInputError(`${flag}: ${folder} is not a folder`);
  const entries: Entry[] = [];
  let bytes = 0;
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (SKIPPED.includes(name)) continue;
      const path = join(dir, name);
      const rel = relative(folder, path).split(sep).join('/');
      const stat = lstatSync(path);
      const base = { mode: stat.mode & 0o7777, mtime: Math.floor(stat.mtimeMs / 1000) };
      if (stat.isDirectory()) {
        entries.push({ ...base, name: `${rel}/`, type: 'dir' });
        walk(path);
      } else if (stat.isSymbolicLink()) {
        entries.push({ ...base, name: rel, type: 'symlink', target: readlinkSync(path) });
      } else if (stat.isFile()) {
        bytes += stat.size;
        if (bytes > RAW_LIMIT) throw tooLarge(folder, flag, `more than ${formatBytes(RAW_LIMIT)}`);
        entries.push({ ...base, name: rel, type: 'file', content: readFileSync(path) });
      }
      // Sockets, pipes and devices are no suite's sources.
    }
  };
  walk(folder);
  const archive = gzipSync(tar(entries, folder, flag), { level: 9 });
  if (archive.length > SECRET_DATA_LIMIT) {
    throw tooLarge(folder, flag, `${formatBytes(archive.length)} packed`);
  }
  return { archive, files: entries.filter((e) => e.type === 'file').length, bytes };
}

function tooLarge(folder: string, flag: string, size: string): UatInputError {
  return new UatInputError(
    `${flag}: ${folder} is too large for the Secret that carries it into the cluster (${size}; a Secret holds at most 1 MiB as tar.gz): leave out data sets and build outputs, or use --git`,
  );
}

const BLOCK = 512;

function tar(entries: readonly Entry[], folder: string, flag: string): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const content = entry.content ?? Buffer.alloc(0);
    blocks.push(header(entry, content.length, folder, flag), content);
    const pad = (BLOCK - (content.length % BLOCK)) % BLOCK;
    if (pad > 0) blocks.push(Buffer.alloc(pad));
  }
  blocks.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(blocks);
}

const octal = (value: number, width: number): string =>
  `${value.toString(8).padStart(width - 1, '0')}\0`;

function header(entry: Entry, size: number, folder: string, flag: string): Buffer {
  const block = Buffer.alloc(BLOCK);
  let prefix = '';
  let name = entry.name;
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf('/', name.endsWith('/') ? name.length - 2 : name.length);
    prefix = cut > 0 ? name.slice(0, cut) : '';
    name = cut > 0 ? name.slice(cut + 1) : name;
    if (Buffer.byteLength(prefix) > 155 || Buffer.byteLength(name) > 100) {
      throw new UatInputError(`${flag}: ${folder}: the path ${entry.name} is too long to pack`);
    }
  }
  const target = entry.target ?? '';
  if (Buffer.byteLength(target) > 100) {
    throw new UatInputError(`${flag}: ${folder}: the link ${entry.name} points too far to pack`);
  }
  block.write(name, 0, 100, 'utf8');
  block.write(octal(entry.mode, 8), 100, 8, 'ascii');
  block.write(octal(0, 8), 108, 8, 'ascii'); // uid
  block.write(octal(0, 8), 116, 8, 'ascii'); // gid
  block.write(octal(size, 12), 124, 12, 'ascii');
  block.write(octal(entry.mtime, 12), 136, 12, 'ascii');
  block.write('        ', 148, 8, 'ascii'); // checksum placeholder
  block.write({ file: '0', dir: '5', symlink: '2' }[entry.type], 156, 1, 'ascii');
  block.write(target, 157, 100, 'utf8');
  block.write('ustar\0', 257, 6, 'ascii');
  block.write('00', 263, 2, 'ascii');
  block.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii');
  return block;
}

/** 3.4 KiB, 1.2 MiB: sizes as the limit is stated. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
