// Where the control-plane binaries come from: KUBEBUILDER_ASSETS when it holds them, otherwise a
// cache folder keyed by the hash of the wrapper Go module that pins them (go.mod + go.sum), built
// on first need. Most come from one module (`go/`, the Kubernetes one); a binary whose
// dependencies would move the versions of that module's (CoreDNS, versitygw, promtool, Argo
// Workflows) has
// a wrapper module of its own and a cache folder of its own, and so does the oldest Kubernetes
// minor (minors.ts).
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
  // The real node's Services and cluster DNS.
  'kube-proxy',
  'coredns',
  // Not part of a cluster: an S3 server on a folder, for tests that upload artifacts (s3.ts).
  'versitygw',
  // Not part of a cluster: Prometheus' rule checker, for the unit tests of the charts' alerts.
  'promtool',
] as const;
/**
 * Argo Workflows' controller and executor, for the end-to-end test of kfx's Argo step only: not
 * in BINARY_NAMES, so only `kfx-testenv binaries --all` (the set-up of `npm test`) builds them,
 * not `npm start`'s set-up nor the start benchmark.
 */
export const ARGO_BINARY_NAMES = ['workflow-controller', 'argoexec'] as const;
export type BinaryName = (typeof BINARY_NAMES)[number] | (typeof ARGO_BINARY_NAMES)[number];
export type BinaryPaths = Record<BinaryName, string>;

/** A wrapper Go module: the versions of the binaries built from it, and their cache folder. */
export interface WrapperModule {
  /** The cache folder's parent: `<cache root>/<name>/<hash>`. */
  name: string;
  dir: string;
  /** The files whose content decides what is built: the module's versions and its own code. */
  sources: readonly string[];
}

/** The wrapper Go module that pins the Kubernetes binaries, etcd, kwok, crictl and helm. */
export const goModuleDir = fileURLToPath(new URL('../go/', import.meta.url));

const CONTROL_PLANE: WrapperModule = {
  name: 'control-plane',
  dir: goModuleDir,
  sources: ['go.mod', 'go.sum', 'cmd/fetch/main.go'],
};

/** CoreDNS needs newer golang.org/x, gRPC and etcd client modules than the control plane's. */
const COREDNS: WrapperModule = {
  name: 'coredns',
  dir: fileURLToPath(new URL('../coredns/', import.meta.url)),
  sources: ['go.mod', 'go.sum', 'main.go'],
};

/** versitygw pulls in the AWS and Azure SDKs and newer golang.org/x modules. */
const VERSITYGW: WrapperModule = {
  name: 'versitygw',
  dir: fileURLToPath(new URL('../versitygw/', import.meta.url)),
  sources: ['go.mod', 'go.sum', 'tools.go'],
};

/** Prometheus brings cloud service-discovery SDKs and its own client-go. */
const PROMTOOL: WrapperModule = {
  name: 'promtool',
  dir: fileURLToPath(new URL('../promtool/', import.meta.url)),
  sources: ['go.mod', 'go.sum', 'tools.go'],
};

/** Argo Workflows pins its own Kubernetes client and cloud SDK versions. */
export const ARGO_MODULE: WrapperModule = {
  name: 'argo',
  dir: fileURLToPath(new URL('../argo/', import.meta.url)),
  sources: ['go.mod', 'go.sum', 'tools.go'],
};

/**
 * The binaries a cluster needs; the rest (versitygw, promtool, Argo) only serve some tests
 * (`--all`).
 */
export const CLUSTER_BINARY_NAMES: readonly BinaryName[] = BINARY_NAMES.filter(
  (name) => name !== 'versitygw' && name !== 'promtool',
);

/** The wrapper module each binary is built from. */
export function moduleOf(name: BinaryName): WrapperModule {
  if (name === 'coredns') return COREDNS;
  if (name === 'versitygw') return VERSITYGW;
  if (name === 'promtool') return PROMTOOL;
  if ((ARGO_BINARY_NAMES as readonly string[]).includes(name)) return ARGO_MODULE;
  return CONTROL_PLANE;
}

/** Cache root: $KFX_CACHE_DIR, else $XDG_CACHE_HOME/kfx, else ~/.cache/kfx. */
function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.KFX_CACHE_DIR) return env.KFX_CACHE_DIR;
  return join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kfx');
}

/** The cache folder of a wrapper module's exact set of versions. */
export function moduleCacheDir(
  module: WrapperModule,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const hash = createHash('sha256');
  for (const file of module.sources.filter((f) => existsSync(join(module.dir, f)))) {
    hash.update(readFileSync(join(module.dir, file)));
  }
  return join(cacheRoot(env), module.name, hash.digest('hex').slice(0, 16));
}

/** The cache folder of the control plane's module (the pause image and benchmark peers live there too). */
export function binaryCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return moduleCacheDir(CONTROL_PLANE, env);
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
  /** Names that must be built, each into its module's cache folder. */
  missing: BinaryName[];
}

/**
 * Finds each binary in KUBEBUILDER_ASSETS first, then in the cache of its module (or of `module`,
 * for every name, when given). Builds nothing.
 */
export function lookUpBinaries(
  names: readonly BinaryName[] = BINARY_NAMES,
  env: NodeJS.ProcessEnv = process.env,
  module?: WrapperModule,
): BinaryLookup {
  // KUBEBUILDER_ASSETS stands for the default modules only: another's versions are not known there.
  const assets = module ? undefined : env.KUBEBUILDER_ASSETS;
  const found: Partial<BinaryPaths> = {};
  const missing: BinaryName[] = [];
  for (const name of names) {
    const candidates = [
      ...(assets ? [join(assets, name)] : []),
      join(moduleCacheDir(module ?? moduleOf(name), env), 'bin', name),
    ];
    const path = candidates.find(isExecutable);
    if (path) found[name] = path;
    else missing.push(name);
  }
  return { found, missing };
}

/** The command that builds what a test or the demo needs, as the set-up of `npm test` runs it. */
function buildCommand(oldest = false): string {
  return `pnpm --filter @kfx/testenv exec kfx-testenv binaries --all${oldest ? ' --minor oldest' : ''}`;
}

export class BinaryMissingError extends Error {
  constructor(
    readonly missing: readonly string[],
    oldest = false,
  ) {
    super(
      `not built: ${missing.join(', ')}. Tests and the demo never build binaries; the set-up of \`npm test\` (and of \`npm start\`) builds them first. By hand: ${buildCommand(oldest)}`,
    );
    this.name = 'BinaryMissingError';
  }
}

/**
 * The paths of `names`, from KUBEBUILDER_ASSETS or the cache (of `module`, for every name, when
 * given); throws BinaryMissingError naming what is not built. Builds nothing: what a test or the
 * demo runs is built by the set-up before it (`kfx-testenv binaries`, build.ts).
 */
export function requireBinaries<N extends BinaryName>(
  names: readonly N[],
  module?: WrapperModule,
  env: NodeJS.ProcessEnv = process.env,
): Pick<BinaryPaths, N> {
  const { found, missing } = lookUpBinaries(names, env, module);
  if (missing.length > 0) throw new BinaryMissingError(missing, module !== undefined);
  return found as Pick<BinaryPaths, N>;
}
