// The Go peer of the comparison benchmarks, built from src/bench/peer (standard library only) with
// the machine's Go into a cache folder keyed by the hash of its sources (not their location), so
// that later runs, and every package's benchmark, reuse it.
// Kubeflow's PodDefault webhook (kubeflow/dashboard components/poddefaults-webhooks) would be the
// natural peer, but the Go module proxy does not serve that module; this one does the same proxy
// injection the way a small Go webhook would.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// src/bench/ and dist/bench/ are as deep in the package: the same climb finds the Go sources from
// this file and from the build of it.
const moduleDir = fileURLToPath(new URL('../../src/bench/peer/', import.meta.url));
/** What decides the binary: the module file (a go.sum appears with a first dependency) and code. */
const SOURCES = ['go.mod', 'main.go'];

/** The cache root the control plane of the tests uses too: $KFX_CACHE_DIR or ~/.cache/kfx. */
function cacheRoot(): string {
  if (process.env.KFX_CACHE_DIR) return process.env.KFX_CACHE_DIR;
  return join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kfx');
}

/** The path of the peer binary, built on first need. */
export function ensurePeer(log: (line: string) => void): string {
  const hash = createHash('sha256');
  for (const file of [...SOURCES, 'go.sum']) {
    const path = join(moduleDir, file);
    if (existsSync(path)) hash.update(readFileSync(path));
  }
  const dir = join(cacheRoot(), 'bench-peer', hash.digest('hex').slice(0, 16));
  const binary = join(dir, 'peer');
  if (existsSync(binary)) return binary;
  mkdirSync(dir, { recursive: true });
  const partial = join(dir, `.peer.partial-${process.pid}`);
  log(`building the Go peer into ${dir}`);
  try {
    execFileSync('go', ['build', '-trimpath', '-o', partial, '.'], {
      cwd: moduleDir,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, CGO_ENABLED: '0', GOTOOLCHAIN: 'local', GOFLAGS: '-mod=readonly' },
    });
    renameSync(partial, binary);
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new Error(
      missing
        ? 'Go is not installed (https://go.dev/dl); the benchmark builds its Go peer with it'
        : `building the Go peer failed: ${(error as Error).message}`,
      { cause: error },
    );
  } finally {
    rmSync(partial, { force: true });
  }
  return binary;
}
