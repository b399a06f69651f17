// Builds the control-plane binaries from the published Go modules with the machine's Go:
// one `go build` per binary (they share Go's build cache), with real version ldflags, written
// to a temporary name and renamed into the cache only when complete. Each binary is built in its
// wrapper module (binaries.ts), into that module's cache folder.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import {
  lookUpBinaries,
  moduleCacheDir,
  moduleOf,
  type BinaryName,
  type BinaryPaths,
  type WrapperModule,
} from './binaries.js';
import { argoBuildFlags } from './argo-source.js';
import { withDirectoryLock } from './lock.js';

interface Target {
  importPath: string;
  module: string;
  ldflags: (version: string) => string[];
  /** Extra `go build` flags, after preparing what they need in the module's cache folder. */
  prepare?: (module: WrapperModule, cacheDir: string) => string[];
}

const kubernetesVersion = (v: string) => {
  const [major = '1', minor = '0'] = v.replace(/^v/, '').split('.');
  const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version'].flatMap((pkg) => [
    `-X ${pkg}.gitVersion=${v}`,
    `-X ${pkg}.gitMajor=${major}`,
    `-X ${pkg}.gitMinor=${minor}`,
    `-X ${pkg}.gitTreeState=clean`,
    `-X ${pkg}.buildDate=${date}`,
  ]);
};

const argoVersion = (v: string) => [
  `-X github.com/argoproj/argo-workflows/v4.version=${v}`,
  `-X github.com/argoproj/argo-workflows/v4.gitTag=${v}`,
  '-X github.com/argoproj/argo-workflows/v4.gitTreeState=clean',
];

const TARGETS: Record<BinaryName, Target> = {
  etcd: {
    importPath: 'go.etcd.io/etcd/server/v3',
    module: 'go.etcd.io/etcd/server/v3',
    ldflags: (v) => [`-X go.etcd.io/etcd/api/v3/version.GitSHA=${v}`],
  },
  'kube-apiserver': {
    importPath: 'k8s.io/kubernetes/cmd/kube-apiserver',
    module: 'k8s.io/kubernetes',
    ldflags: kubernetesVersion,
  },
  'kube-controller-manager': {
    importPath: 'k8s.io/kubernetes/cmd/kube-controller-manager',
    module: 'k8s.io/kubernetes',
    ldflags: kubernetesVersion,
  },
  'kube-scheduler': {
    importPath: 'k8s.io/kubernetes/cmd/kube-scheduler',
    module: 'k8s.io/kubernetes',
    ldflags: kubernetesVersion,
  },
  kubectl: {
    importPath: 'k8s.io/kubernetes/cmd/kubectl',
    module: 'k8s.io/kubernetes',
    ldflags: kubernetesVersion,
  },
  kubelet: {
    importPath: 'k8s.io/kubernetes/cmd/kubelet',
    module: 'k8s.io/kubernetes',
    ldflags: kubernetesVersion,
  },
  'kube-proxy': {
    importPath: 'k8s.io/kubernetes/cmd/kube-proxy',
    module: 'k8s.io/kubernetes',
    ldflags: kubernetesVersion,
  },
  // CoreDNS with the plugins the test cluster's DNS uses (coredns/main.go), as its README says
  // to build one with a chosen set of plugins; its version is the module's own constant.
  coredns: {
    importPath: 'kfx.dev/tooling/testenv/coredns',
    module: 'github.com/coredns/coredns',
    ldflags: () => [],
  },
  crictl: {
    importPath: 'sigs.k8s.io/cri-tools/cmd/crictl',
    module: 'sigs.k8s.io/cri-tools',
    ldflags: (v) => [`-X sigs.k8s.io/cri-tools/pkg/version.Version=${v}`],
  },
  fetch: {
    importPath: 'kfx.dev/tooling/testenv/go/cmd/fetch',
    module: 'kfx.dev/tooling/testenv/go',
    ldflags: () => [],
  },
  // The S3 gateway's own main, with the version variables its Makefile sets.
  versitygw: {
    importPath: 'github.com/versity/versitygw/cmd/versitygw',
    module: 'github.com/versity/versitygw',
    ldflags: (v) => [`-X main.Version=${v}`],
  },
  // Prometheus' rule checker (promtool/tools.go), for `promtool test rules` on the charts'
  // alerts; the version variables are the ones Prometheus' own build sets.
  promtool: {
    importPath: 'github.com/prometheus/prometheus/cmd/promtool',
    module: 'github.com/prometheus/prometheus',
    ldflags: (v) => [
      `-X github.com/prometheus/common/version.Version=${v.replace(/^v0\.(\d)(\d\d)\./, '$1.$2.')}`,
      '-X github.com/prometheus/common/version.Branch=HEAD',
    ],
  },
  // Argo Workflows, for the Argo step's end-to-end test only (argo/tools.go). Its version is
  // what `argo version` and the controller's log print.
  'workflow-controller': {
    importPath: 'github.com/argoproj/argo-workflows/v4/cmd/workflow-controller',
    module: 'github.com/argoproj/argo-workflows/v4',
    ldflags: argoVersion,
    prepare: argoBuildFlags,
  },
  argoexec: {
    importPath: 'github.com/argoproj/argo-workflows/v4/cmd/argoexec',
    module: 'github.com/argoproj/argo-workflows/v4',
    ldflags: argoVersion,
    prepare: argoBuildFlags,
  },
  kwok: { importPath: 'sigs.k8s.io/kwok/cmd/kwok', module: 'sigs.k8s.io/kwok', ldflags: () => [] },
  helm: {
    importPath: 'helm.sh/helm/v3/cmd/helm',
    module: 'helm.sh/helm/v3',
    ldflags: (v) => [`-X helm.sh/helm/v3/internal/version.version=${v}`],
  },
};

export class BinaryBuildError extends Error {
  constructor(
    readonly binary: string,
    reason: string,
  ) {
    super(`building ${binary} failed: ${reason}`);
    this.name = 'BinaryBuildError';
  }
}

export type Progress = (line: string) => void;

const goEnv = (): NodeJS.ProcessEnv => ({
  ...process.env,
  CGO_ENABLED: '0',
  // The module pins its Go version; never fetch a toolchain from the internet.
  GOTOOLCHAIN: 'local',
  GOFLAGS: '-mod=readonly',
});

function moduleVersions(module: WrapperModule): Map<string, string> {
  let out: string;
  try {
    out = execFileSync('go', ['list', '-m', '-f', '{{.Path}} {{.Version}}', 'all'], {
      cwd: module.dir,
      env: goEnv(),
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    const e = error as { code?: string; stderr?: string };
    if (e.code === 'ENOENT') {
      throw new BinaryBuildError(
        'the control plane',
        'Go is not installed (https://go.dev/dl), and KUBEBUILDER_ASSETS does not name a folder with the binaries',
      );
    }
    throw new BinaryBuildError(
      'the control plane',
      `go list failed:\n${e.stderr ?? String(error)}`,
    );
  }
  return new Map(
    out
      .trim()
      .split('\n')
      .map((l) => l.split(' ') as [string, string]),
  );
}

const elapsed = (since: number) => {
  const s = Math.round((Date.now() - since) / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
};

function goBuild(
  name: BinaryName,
  version: string,
  output: string,
  progress: Progress,
  module: WrapperModule,
  extraFlags: readonly string[] = [],
): Promise<void> {
  const target = TARGETS[name];
  const args = [
    'build',
    ...extraFlags,
    '-trimpath',
    '-o',
    output,
    '-ldflags',
    ['-s', '-w', ...target.ldflags(version)].join(' '),
    target.importPath,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn('go', args, {
      cwd: module.dir,
      env: goEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let tail = '';
    const keep = (chunk: Buffer) => {
      tail = (tail + chunk.toString()).slice(-8000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const started = Date.now();
    const heartbeat = setInterval(() => {
      progress(`  … still building ${name} (${elapsed(started)})`);
    }, 30_000);
    child.on('error', (error) => {
      clearInterval(heartbeat);
      reject(new BinaryBuildError(name, error.message));
    });
    child.on('close', (code, signal) => {
      clearInterval(heartbeat);
      if (code === 0) resolve();
      else
        reject(
          new BinaryBuildError(name, `go build exited with ${signal ?? code}:\n${tail.trim()}`),
        );
    });
  });
}

export interface BuildRecord {
  /** Seconds each binary took, in build order, across every build into this cache folder. */
  seconds: Record<string, number>;
  goVersion: string;
  builtAt: string;
}

/** What the builds into `cacheDir` took, for the benchmark; undefined before any build. */
export function readBuildRecord(cacheDir: string): BuildRecord | undefined {
  try {
    return JSON.parse(readFileSync(join(cacheDir, 'build.json'), 'utf8')) as BuildRecord;
  } catch {
    return undefined;
  }
}

function recordBuild(cacheDir: string, timings: Record<string, number>): void {
  const previous = readBuildRecord(cacheDir)?.seconds ?? {};
  const goVersion = execFileSync('go', ['env', 'GOVERSION'], { encoding: 'utf8' }).trim();
  const record: BuildRecord = {
    seconds: { ...previous, ...timings },
    goVersion,
    builtAt: new Date().toISOString(),
  };
  writeFileSync(join(cacheDir, 'build.json'), `${JSON.stringify(record, null, 2)}\n`);
}

/**
 * Returns the path of every requested binary, building the missing ones into the cache of each
 * one's wrapper module (or of `module`, for every name, when given: an older minor's, minors.ts).
 * Concurrent callers (parallel test processes) wait for one build instead of racing.
 */
export async function ensureBinaries(
  names: readonly BinaryName[],
  progress: Progress = (line) => {
    process.stderr.write(`${line}\n`);
  },
  module?: WrapperModule,
): Promise<Pick<BinaryPaths, (typeof names)[number]>> {
  const first = lookUpBinaries(names, process.env, module);
  if (first.missing.length === 0) return first.found as BinaryPaths;
  const found: Partial<BinaryPaths> = { ...first.found };
  const ofModule = (name: BinaryName) => module ?? moduleOf(name);
  const modules = [...new Set(first.missing.map(ofModule))];
  const all = Date.now();
  let built = 0;
  for (const each of modules) {
    const cacheDir = moduleCacheDir(each);
    const binDir = join(cacheDir, 'bin');
    mkdirSync(binDir, { recursive: true });
    await withDirectoryLock(`${cacheDir}.lock`, progress, async () => {
      // Another process may have built them meanwhile.
      const wanted = first.missing.filter((name) => ofModule(name) === each);
      const { found: done, missing } = lookUpBinaries(wanted, process.env, module);
      Object.assign(found, done);
      if (missing.length === 0) return;
      const versions = moduleVersions(each);
      const timings: Record<string, number> = {};
      progress(
        `Building ${missing.length} binaries of ${each.name} into ${binDir} (first run only; later runs reuse them)`,
      );
      for (const [i, name] of missing.entries()) {
        const target = TARGETS[name];
        const version = versions.get(target.module) ?? 'unknown';
        const started = Date.now();
        progress(`[${i + 1}/${missing.length}] building ${name} from ${target.module} ${version}`);
        const partial = join(binDir, `.${name}.partial-${process.pid}`);
        try {
          const flags = target.prepare?.(each, cacheDir) ?? [];
          await goBuild(name, version, partial, progress, each, flags);
          renameSync(partial, join(binDir, name));
        } finally {
          rmSync(partial, { force: true });
        }
        const size = (statSync(join(binDir, name)).size / 1048576).toFixed(0);
        progress(
          `[${i + 1}/${missing.length}] ✓ ${name} ${version} (${size} MiB) in ${elapsed(started)}`,
        );
        found[name] = join(binDir, name);
        timings[name] = (Date.now() - started) / 1000;
        built++;
      }
      recordBuild(cacheDir, timings);
    });
  }
  if (built > 0) progress(`✓ ${built} binaries built in ${elapsed(all)}`);
  return found as BinaryPaths;
}
