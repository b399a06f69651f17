// Where the control-plane binaries come from: KUBEBUILDER_ASSETS when it holds them, otherwise a
// cache folder keyed by the hash of the wrapper Go module (go.mod + go.sum), built on first need.
// The oldest Kubernetes minor's binaries come from a wrapper module of their own (minors.ts).
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BINARY_NAMES = [
  'etcd',
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'kwok',
  'kubectl',
  'helm',
  // The real node: the kubelet, crictl, and the static HTTP client its test images carry.
  'kubelet',
  'crictl',
  'fetch',
] as const;
export type BinaryName = (typeof BINARY_NAMES)[number];
export type BinaryPaths = Record<BinaryName, string>;

/** The wrapper Go module that pins every binary's version. */
export const goModuleDir = fileURLToPath(new URL('../go/', import.meta.url));

/** Cache root: $KFX_CACHE_DIR, else $XDG_CACHE_HOME/kfx, else ~/.cache/kfx. */
function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.KFX_CACHE_DIR) return env.KFX_CACHE_DIR;
  return join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kfx');
}

/** The files whose content decides what is built: the module's versions and its own command. */
const SOURCES = ['go.mod', 'go.sum', 'cmd/fetch/main.go'];

/** The folder for this exact set of module versions (of `moduleDir`, by default the newest). */
export function binaryCacheDir(
  env: NodeJS.ProcessEnv = process.env,
  moduleDir: string = goModuleDir,
): string {
  const hash = createHash('sha256');
  for (const file of SOURCES.filter((f) => existsSync(join(moduleDir, f)))) {
    hash.update(readFileSync(join(moduleDir, file)));
  }
  return join(cacheRoot(env), 'control-plane', hash.digest('hex').slice(0, 16));
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export interface BinaryLookup {
  /** Paths of the binaries found. */
  found: Partial<BinaryPaths>;
  /** Names that must be built into `cacheDir`. */
  missing: BinaryName[];
  cacheDir: string;
}

/**
 * Finds each binary in KUBEBUILDER_ASSETS first, then in the cache of `moduleDir`. Builds nothing.
 * KUBEBUILDER_ASSETS stands for the newest module only: its binaries' version is not known here.
 */
export function lookUpBinaries(
  names: readonly BinaryName[] = BINARY_NAMES,
  env: NodeJS.ProcessEnv = process.env,
  moduleDir: string = goModuleDir,
): BinaryLookup {
  const cacheDir = binaryCacheDir(env, moduleDir);
  const assets = moduleDir === goModuleDir ? env.KUBEBUILDER_ASSETS : undefined;
  const found: Partial<BinaryPaths> = {};
  const missing: BinaryName[] = [];
  for (const name of names) {
    const candidates = [...(assets ? [join(assets, name)] : []), join(cacheDir, 'bin', name)];
    const path = candidates.find(isExecutable);
    if (path) found[name] = path;
    else missing.push(name);
  }
  return { found, missing, cacheDir };
}
