// kwok configuration for the test control plane: fake nodes become Ready, their pods "run",
// Job pods complete. Annotations on a pod (usually set in a Job's pod template) steer it:
//   kwok.kfx.dev/run-for: "3s"     stay Running this long before completing
//   kwok.kfx.dev/exit-code: "1"    finish Failed with this exit code instead of Succeeded
//   kwok.kfx.dev/cannot-start: "ErrImagePull"   stay Pending with this waiting reason
import type { KubernetesObject } from '@kubernetes/client-node';
import { stringify } from 'yaml';

export const KWOK_ANNOTATIONS = {
  runFor: 'kwok.kfx.dev/run-for',
  exitCode: 'kwok.kfx.dev/exit-code',
  cannotStart: 'kwok.kfx.dev/cannot-start',
} as const;

const annotation = (key: string) => `.metadata.annotations["${key}"]`;
const notDeleting = { key: '.metadata.deletionTimestamp', operator: 'DoesNotExist' };
const phaseIs = (phase: string) => ({ key: '.status.phase', operator: 'In', values: [phase] });
const ownedByJob = { key: '.metadata.ownerReferences.[].kind', operator: 'In', values: ['Job'] };
const runFor = {
  durationMilliseconds: 0,
  durationFrom: { expressionFrom: annotation(KWOK_ANNOTATIONS.runFor) },
};

function podStage(
  name: string,
  matchExpressions: object[],
  template: string,
  delay?: object,
): object {
  return {
    apiVersion: 'kwok.x-k8s.io/v1alpha1',
    kind: 'Stage',
    metadata: { name },
    spec: {
      resourceRef: { apiGroup: 'v1', kind: 'Pod' },
      selector: { matchExpressions },
      ...(delay ? { delay } : {}),
      next: { patches: [{ subresource: 'status', root: 'status', template }] },
    },
  };
}

const runningStatus = `
{{ $now := Now }}
phase: Running
startTime: {{ $now | Quote }}
conditions:
{{ range list "PodScheduled" "Initialized" "PodReadyToStartContainers" "ContainersReady" "Ready" }}
- type: {{ . }}
  status: "True"
  lastTransitionTime: {{ $now | Quote }}
{{ end }}
containerStatuses:
{{ range .spec.containers }}
- name: {{ .name | Quote }}
  image: {{ .image | Quote }}
  imageID: {{ printf "kwok://%s" .image | Quote }}
  ready: true
  started: true
  restartCount: 0
  state:
    running:
      startedAt: {{ $now | Quote }}
{{ end }}
{{ with .spec.initContainers }}
initContainerStatuses:
{{ range . }}
- name: {{ .name | Quote }}
  image: {{ .image | Quote }}
  imageID: {{ printf "kwok://%s" .image | Quote }}
  ready: true
  restartCount: 0
  state:
    terminated:
      exitCode: 0
      reason: Completed
      startedAt: {{ $now | Quote }}
      finishedAt: {{ $now | Quote }}
{{ end }}
{{ end }}
{{ with NodeIPsWith .spec.nodeName }}
hostIP: {{ index . 0 | Quote }}
{{ end }}
{{ with PodIPsWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) }}
podIP: {{ index . 0 | Quote }}
podIPs:
{{ range . }}
- ip: {{ . | Quote }}
{{ end }}
{{ end }}
`;

const terminatedStatus = (phase: string, exitCode: string, reason: string) => `
{{ $now := Now }}
{{ $started := or .status.startTime $now }}
phase: ${phase}
conditions:
{{ range list "ContainersReady" "Ready" }}
- type: {{ . }}
  status: "False"
  reason: PodCompleted
  lastTransitionTime: {{ $now | Quote }}
{{ end }}
containerStatuses:
{{ range .spec.containers }}
- name: {{ .name | Quote }}
  image: {{ .image | Quote }}
  imageID: {{ printf "kwok://%s" .image | Quote }}
  ready: false
  started: false
  restartCount: 0
  state:
    terminated:
      exitCode: ${exitCode}
      reason: ${reason}
      startedAt: {{ $started | Quote }}
      finishedAt: {{ $now | Quote }}
{{ end }}
`;

const cannotStartStatus = `
{{ $now := Now }}
phase: Pending
conditions:
- type: PodScheduled
  status: "True"
  lastTransitionTime: {{ $now | Quote }}
- type: Ready
  status: "False"
  reason: ContainersNotReady
  lastTransitionTime: {{ $now | Quote }}
containerStatuses:
{{ $reason := index .metadata.annotations "${KWOK_ANNOTATIONS.cannotStart}" }}
{{ range .spec.containers }}
- name: {{ .name | Quote }}
  image: {{ .image | Quote }}
  ready: false
  started: false
  restartCount: 0
  state:
    waiting:
      reason: {{ $reason | Quote }}
      message: {{ printf "simulated by kwok: %s" $reason | Quote }}
{{ end }}
`;

const nodeReadyStatus = `
{{ $now := Now }}
phase: Running
conditions:
- type: Ready
  status: "True"
  reason: KubeletReady
  message: kwok simulates this node
  lastHeartbeatTime: {{ $now | Quote }}
  lastTransitionTime: {{ $now | Quote }}
{{ range list "MemoryPressure" "DiskPressure" "PIDPressure" "NetworkUnavailable" }}
- type: {{ . }}
  status: "False"
  reason: {{ printf "KwokNo%s" . | Quote }}
  message: kwok simulates this node
  lastHeartbeatTime: {{ $now | Quote }}
  lastTransitionTime: {{ $now | Quote }}
{{ end }}
addresses:
- type: InternalIP
  address: {{ NodeIP | Quote }}
- type: Hostname
  address: {{ .metadata.name | Quote }}
daemonEndpoints:
  kubeletEndpoint:
    Port: {{ NodePort }}
allocatable:
  cpu: "32"
  memory: 256Gi
  pods: "110"
  ephemeral-storage: 1Ti
capacity:
  cpu: "32"
  memory: 256Gi
  pods: "110"
  ephemeral-storage: 1Ti
nodeInfo:
  architecture: amd64
  operatingSystem: linux
  kubeletVersion: kwok
  containerRuntimeVersion: kwok
  kernelVersion: kwok
  osImage: kwok
  machineID: ""
  bootID: ""
  systemUUID: ""
`;

function kwokStages(): object[] {
  const exitCode = annotation(KWOK_ANNOTATIONS.exitCode);
  const cannotStart = annotation(KWOK_ANNOTATIONS.cannotStart);
  return [
    {
      apiVersion: 'kwok.x-k8s.io/v1alpha1',
      kind: 'Stage',
      metadata: { name: 'kfx-node-ready' },
      spec: {
        resourceRef: { apiGroup: 'v1', kind: 'Node' },
        selector: {
          matchExpressions: [
            {
              key: '.status.conditions.[] | select( .type == "Ready" ) | .status',
              operator: 'NotIn',
              values: ['True'],
            },
          ],
        },
        next: { patches: [{ subresource: 'status', root: 'status', template: nodeReadyStatus }] },
      },
    },
    podStage(
      'kfx-pod-cannot-start',
      [
        notDeleting,
        phaseIs('Pending'),
        { key: cannotStart, operator: 'Exists' },
        {
          key: '.status.containerStatuses',
          operator: 'DoesNotExist',
        },
      ],
      cannotStartStatus,
    ),
    podStage(
      'kfx-pod-running',
      [notDeleting, phaseIs('Pending'), { key: cannotStart, operator: 'DoesNotExist' }],
      runningStatus,
    ),
    podStage(
      'kfx-pod-succeeded',
      [notDeleting, phaseIs('Running'), ownedByJob, { key: exitCode, operator: 'DoesNotExist' }],
      terminatedStatus('Succeeded', '0', 'Completed'),
      runFor,
    ),
    podStage(
      'kfx-pod-failed',
      [notDeleting, phaseIs('Running'), ownedByJob, { key: exitCode, operator: 'Exists' }],
      // `$`: inside the template's range over containers, `.` is a container.
      terminatedStatus(
        'Failed',
        `{{ index $.metadata.annotations "${KWOK_ANNOTATIONS.exitCode}" }}`,
        'Error',
      ),
      runFor,
    ),
    {
      apiVersion: 'kwok.x-k8s.io/v1alpha1',
      kind: 'Stage',
      metadata: { name: 'kfx-pod-delete' },
      spec: {
        resourceRef: { apiGroup: 'v1', kind: 'Pod' },
        selector: {
          matchExpressions: [{ key: '.metadata.deletionTimestamp', operator: 'Exists' }],
        },
        next: { delete: true },
      },
    },
  ];
}

export interface KwokSettings {
  serverPort: number;
  /** Extra configuration documents (e.g. ClusterLogs) appended after the stages. */
  extra?: readonly object[];
}

export function kwokConfigYaml(settings: KwokSettings): string {
  const configuration = {
    apiVersion: 'config.kwok.x-k8s.io/v1alpha1',
    kind: 'KwokConfiguration',
    options: {
      // Only the fake nodes: a real node beside them belongs to its kubelet.
      manageAllNodes: false,
      manageNodesWithAnnotationSelector: 'kwok.x-k8s.io/node=fake',
      cidr: '10.244.0.0/16',
      nodeIP: '127.0.0.1',
      nodePort: settings.serverPort,
      serverAddress: `127.0.0.1:${settings.serverPort}`,
      nodeLeaseDurationSeconds: 40,
      // A configuration file gets no defaults for these; zero stops kwok at start.
      nodeLeaseParallelism: 4,
      podPlayStageParallelism: 4,
      nodePlayStageParallelism: 4,
      podsOnNodeSyncParallelism: 4,
      enableCRDs: ['Logs', 'ClusterLogs'],
      // Serve pods/log (and exec/attach) like a kubelet; off by default in kwok.
      enableDebuggingHandlers: true,
    },
  };
  return [configuration, ...kwokStages(), ...(settings.extra ?? [])]
    .map((doc) => stringify(doc, { lineWidth: 0 }))
    .join('---\n');
}

/** A fake node for kwok to manage. */
export function fakeNode(name: string): KubernetesObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        type: 'kwok',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
      },
      annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'kwok.x-k8s.io/node': 'fake' },
    },
  };
}
