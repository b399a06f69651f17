// The Kubernetes minors the test bed runs: the newest, whose wrapper module (`go/`) pins every
// binary, and the oldest kfx supports, whose module (`go-1.30/`) pins only what must match the
// API server's minor: kube-apiserver, the controller-manager and scheduler beside it, and the
// real node's kubelet and kube-proxy (Kubernetes' version-skew policy forbids a kubelet newer
// than its API server). One Go module cannot hold two versions of k8s.io/kubernetes, so each
// minor has its module and its cache folder; etcd, kwok, kubectl, helm, crictl and CoreDNS
// always come from the newest.
// KFX_KUBERNETES_MINOR (`newest`, `oldest` or the minor itself) picks the minor of the control
// planes a process starts; `npm test` runs the version-dependent suites on both.
import { fileURLToPath } from 'node:url';
import {
  requireBinaries,
  type BinaryName,
  type BinaryPaths,
  type WrapperModule,
} from './binaries.js';
import { ensureBinaries, type Progress } from './build.js';

export const NEWEST_MINOR = '1.37';
export const OLDEST_MINOR = '1.30';
export type KubernetesMinor = typeof NEWEST_MINOR | typeof OLDEST_MINOR;

/** The environment variable that picks the minor of the control planes started. */
export const MINOR_VARIABLE = 'KFX_KUBERNETES_MINOR';

/** The binaries built from the oldest minor's module; anything else comes from the newest. */
export const OLDEST_MINOR_BINARIES: readonly BinaryName[] = [
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'kubelet',
  'kube-proxy',
];

/** The oldest minor's wrapper module; its cache folders sit beside the newest's. */
const OLDEST_MODULE: WrapperModule = {
  name: 'control-plane',
  dir: fileURLToPath(new URL(`../go-${OLDEST_MINOR}/`, import.meta.url)),
  sources: ['go.mod', 'go.sum'],
};

/** The minor `value` names (default: $KFX_KUBERNETES_MINOR, else the newest). */
export function kubernetesMinor(value = process.env[MINOR_VARIABLE]): KubernetesMinor {
  const wanted = value?.trim() ?? '';
  if (wanted === '' || wanted === 'newest' || wanted === NEWEST_MINOR) return NEWEST_MINOR;
  if (wanted === 'oldest' || wanted === OLDEST_MINOR) return OLDEST_MINOR;
  throw new Error(
    `${MINOR_VARIABLE}=${wanted}: the test bed runs Kubernetes ${NEWEST_MINOR} (newest) and ${OLDEST_MINOR} (oldest)`,
  );
}

/** The binaries `minor` builds from its own module (all of them for the newest). */
export function ownBinaries(minor: KubernetesMinor, names: readonly BinaryName[]): BinaryName[] {
  return minor === NEWEST_MINOR
    ? [...names]
    : names.filter((n) => OLDEST_MINOR_BINARIES.includes(n));
}

/**
 * ensureBinaries for a control plane of `minor`: the binaries that must match the API server
 * from that minor's module, the rest from the newest.
 */
export async function ensureMinorBinaries<N extends BinaryName>(
  names: readonly N[],
  minor: KubernetesMinor,
  progress?: Progress,
): Promise<Pick<BinaryPaths, N>> {
  if (minor === NEWEST_MINOR) return ensureBinaries(names, progress);
  const own = ownBinaries(minor, names);
  const shared = names.filter((name) => !own.includes(name));
  return {
    ...(shared.length > 0 ? await ensureBinaries(shared, progress) : {}),
    ...(await ensureBinaries(own, progress, OLDEST_MODULE)),
  };
}

/** requireBinaries for a control plane of `minor`: builds nothing, throws what is missing. */
export function requireMinorBinaries<N extends BinaryName>(
  names: readonly N[],
  minor: KubernetesMinor,
): Pick<BinaryPaths, N> {
  if (minor === NEWEST_MINOR) return requireBinaries(names);
  const own = ownBinaries(minor, names);
  const shared = names.filter((name) => !own.includes(name));
  return { ...requireBinaries(shared), ...requireBinaries(own, OLDEST_MODULE) };
}

/**
 * Whether a server reporting `version` (`v1.30.14`, a plane's `kubernetesVersion`) is at least
 * `minor` (`1.33`): for tests whose expectations differ where an API came with a later minor.
 */
export function atLeastMinor(version: string, minor: string): boolean {
  const [major = 0, have = 0] = version.replace(/^v/, '').split('.').map(Number);
  const [wantMajor = 0, want = 0] = minor.split('.').map(Number);
  return major > wantMajor || (major === wantMajor && have >= want);
}
