// What a suite in a Kubeflow namespace expects of its Pod, added to the suite's Job by the runner
// rather than by PodDefaults the test namespace may not have:
// - variables naming the namespaces, as the Canonical UAT notebooks read them
//   (`KUBEFLOW_NAMESPACE`, default `kubeflow`, and `USER_NAMESPACE`, the test namespace);
// - Kubeflow Pipelines access as the `access-ml-pipeline` PodDefault gives it: a projected
//   service-account token for the audience `pipelines.kubeflow.org`, mounted where `kfp.Client()`
//   looks (`KF_PIPELINES_SA_TOKEN_PATH`). Same volume name, path and token settings as upstream,
//   but without the PodDefault's label: Kubeflow's admission webhook merges a PodDefault's volume
//   into a Pod only when it is identical to the Pod's own of that name, and the API server's
//   defaults (`defaultMode`) make ours differ from any PodDefault's, so a Pod with both would be
//   refused. A Pod template that carries the label itself is left to the PodDefault;
// - the Istio sidecar as a native one (or none): a Job whose Pod has a classic sidecar never
//   completes, since the sidecar outlives the suite.
// A container's own `env` entry and a key of the run's `env` win over every variable set here.
import type { V1Container, V1ObjectMeta, V1PodSpec } from '@kubernetes/client-node';

export type IstioSidecarMode = 'native' | 'off' | 'inject';
export const ISTIO_SIDECAR_MODES: readonly IstioSidecarMode[] = ['native', 'off', 'inject'];

const KUBEFLOW_PIPELINES = {
  /** The PodDefault's selector label, which kfx does not set (see above). */
  podDefaultLabel: 'access-ml-pipeline',
  volume: 'volume-kf-pipeline-token',
  mountPath: '/var/run/secrets/kubeflow/pipelines',
  tokenPathEnv: 'KF_PIPELINES_SA_TOKEN_PATH',
  tokenPath: '/var/run/secrets/kubeflow/pipelines/token',
  audience: 'pipelines.kubeflow.org',
  expirationSeconds: 7200,
} as const;

const NAMESPACE_ENV = { kubeflow: 'KUBEFLOW_NAMESPACE', user: 'USER_NAMESPACE' } as const;

export interface KubeflowPodInput {
  /** The test namespace: `USER_NAMESPACE`. */
  namespace: string;
  /** `KUBEFLOW_NAMESPACE`. */
  kubeflowNamespace: string;
  /** Mount the Pipelines token. */
  pipelinesToken: boolean;
  istioSidecar: IstioSidecarMode;
  /** Names the run's env Secret sets: they win over the variables set here. */
  envKeys: readonly string[];
}

/** Adds the namespace variables, the Pipelines token and the Istio setting to the pod template. */
export function addKubeflowPod(
  metadata: V1ObjectMeta,
  spec: V1PodSpec,
  input: KubeflowPodInput,
): void {
  const variables: Record<string, string> = {
    [NAMESPACE_ENV.kubeflow]: input.kubeflowNamespace,
    [NAMESPACE_ENV.user]: input.namespace,
  };
  const byPodDefault = metadata.labels?.[KUBEFLOW_PIPELINES.podDefaultLabel] === 'true';
  const token = input.pipelinesToken && !byPodDefault;
  if (token) {
    variables[KUBEFLOW_PIPELINES.tokenPathEnv] = KUBEFLOW_PIPELINES.tokenPath;
    addTokenVolume(spec);
  }
  for (const container of spec.containers) {
    setDefaultEnv(container, variables, input.envKeys);
    if (token) mountToken(container);
  }
  setIstioSidecar(metadata, input.istioSidecar);
}

function setDefaultEnv(
  container: V1Container,
  variables: Record<string, string>,
  envKeys: readonly string[],
): void {
  const taken = new Set([...(container.env ?? []).map((e) => e.name), ...envKeys]);
  const added = Object.entries(variables)
    .filter(([name]) => !taken.has(name))
    .map(([name, value]) => ({ name, value }));
  if (added.length > 0) container.env = [...(container.env ?? []), ...added];
}

function addTokenVolume(spec: V1PodSpec): void {
  const volumes = spec.volumes ?? [];
  if (volumes.some((v) => v.name === KUBEFLOW_PIPELINES.volume)) return; // the manifest's own
  spec.volumes = [
    ...volumes,
    {
      name: KUBEFLOW_PIPELINES.volume,
      projected: {
        sources: [
          {
            serviceAccountToken: {
              path: 'token',
              expirationSeconds: KUBEFLOW_PIPELINES.expirationSeconds,
              audience: KUBEFLOW_PIPELINES.audience,
            },
          },
        ],
      },
    },
  ];
}

function mountToken(container: V1Container): void {
  const mounts = container.volumeMounts ?? [];
  const mounted = mounts.some(
    (m) => m.name === KUBEFLOW_PIPELINES.volume || m.mountPath === KUBEFLOW_PIPELINES.mountPath,
  );
  if (mounted) return;
  container.volumeMounts = [
    ...mounts,
    { name: KUBEFLOW_PIPELINES.volume, mountPath: KUBEFLOW_PIPELINES.mountPath, readOnly: true },
  ];
}

const ISTIO = {
  nativeSidecar: 'sidecar.istio.io/nativeSidecar',
  inject: 'sidecar.istio.io/inject',
} as const;

/**
 * `native`: the annotation that makes Istio inject its proxy as a native sidecar (an init
 * container that ends with the Pod; Kubernetes 1.29 or later), harmless without Istio. `off`:
 * the label that keeps Istio from injecting one. `inject`: nothing, the namespace decides. The
 * manifest's own annotation or label of that name wins.
 */
function setIstioSidecar(metadata: V1ObjectMeta, mode: IstioSidecarMode): void {
  if (mode === 'native') {
    const annotations = (metadata.annotations ??= {});
    annotations[ISTIO.nativeSidecar] ??= 'true';
  } else if (mode === 'off') {
    const labels = (metadata.labels ??= {});
    labels[ISTIO.inject] ??= 'false';
  }
}
