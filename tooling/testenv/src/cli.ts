// kfx-testenv: build the control-plane binaries ahead of the tests, or start a control plane
// to explore by hand.
//   kfx-testenv binaries [--all] [--minor oldest] build what is missing, print where each binary is
//   kfx-testenv start [--full] [--minor oldest]  start one and keep it until Ctrl-C
import { parseArgs } from 'node:util';
import {
  ARGO_BINARY_NAMES,
  BINARY_NAMES,
  binaryCacheDir,
  CLUSTER_BINARY_NAMES,
  type BinaryName,
} from './binaries.js';
import { BinaryBuildError } from './build.js';
import { realNodeSupport } from './node/host.js';
import { buildPauseImage } from './node/images.js';
import { startControlPlane } from './control-plane.js';
import {
  ensureMinorBinaries,
  kubernetesMinor,
  NEWEST_MINOR,
  OLDEST_MINOR,
  ownBinaries,
} from './minors.js';

const usage = `Usage:
  kfx-testenv binaries [--all]  build the missing binaries (and the real node's pause image);
                                print their paths (--all: also what only some tests run:
                                versitygw, promtool, Argo's workflow-controller and argoexec).
                                Tests and the demo never build: the set-up of npm test runs
                                --all first
  kfx-testenv start [--full]    start etcd + kube-apiserver (--full: also controller-manager,
                                scheduler and kwok) and keep them running until Ctrl-C

  --minor M   Kubernetes ${NEWEST_MINOR} (newest, the default) or ${OLDEST_MINOR} (oldest); default
              $KFX_KUBERNETES_MINOR. \`binaries --minor ${OLDEST_MINOR}\` builds only what that
              minor does not share with the newest (apiserver, controller-manager, scheduler,
              and the real node's kubelet and kube-proxy).

Binaries come from KUBEBUILDER_ASSETS when it holds them, else from a cache under
\${XDG_CACHE_HOME:-~/.cache}/kfx (or KFX_CACHE_DIR), built with Go on first need.
`;

const log = (line: string) => {
  process.stderr.write(`${line}\n`);
};

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      full: { type: 'boolean' },
      all: { type: 'boolean' },
      minor: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command] = positionals;
  if (values.help || !command) {
    process.stdout.write(usage);
    return values.help ? 0 : 2;
  }
  const minor = kubernetesMinor(values.minor);
  if (command === 'binaries') {
    const wanted: readonly BinaryName[] = values.all
      ? [...BINARY_NAMES, ...ARGO_BINARY_NAMES]
      : CLUSTER_BINARY_NAMES;
    const names = ownBinaries(minor, wanted);
    const paths = await ensureMinorBinaries(names, minor, log);
    for (const name of names) process.stdout.write(`${name}\t${paths[name]}\n`);
    // The real node's sandbox image, where a real node can run (it needs gcc, among others).
    if (names.includes('kubelet') && realNodeSupport().available) {
      process.stdout.write(`pause.tar\t${buildPauseImage(binaryCacheDir())}\n`);
    }
    return 0;
  }
  if (command === 'start') {
    // By hand, the start builds what is missing; startControlPlane itself never builds.
    const full = ['kube-controller-manager', 'kube-scheduler', 'kwok'] as const;
    await ensureMinorBinaries(['etcd', 'kube-apiserver', ...(values.full ? full : [])], minor, log);
    const env = await startControlPlane({
      components: values.full ? ['controller-manager', 'scheduler', 'kwok'] : [],
      progress: log,
      kubernetesMinor: minor,
    });
    process.stdout.write(
      `Control plane (Kubernetes ${env.kubernetesVersion}) ready at ${env.server}\n  export KUBECONFIG=${env.kubeconfigPath}\nCtrl-C stops it.\n`,
    );
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await env.stop();
    return 0;
  }
  process.stderr.write(`kfx-testenv: unknown command ${JSON.stringify(command)}\n\n${usage}`);
  return 2;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `kfx-testenv: ${error instanceof BinaryBuildError || error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  },
);
