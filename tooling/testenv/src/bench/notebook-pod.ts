// A realistic Pod for tests and benchmarks: a Kubeflow notebook with an Istio sidecar and a
// log shipper, three containers, about 6 KiB of JSON as the apiserver sends it on CREATE.
import type { V1Pod } from '@kubernetes/client-node';

/**
 * A model of @kubernetes/client-node as JSON carries it (timestamps as strings, not Date): the
 * same shape as admission-core's Plain<T>, which testenv cannot import (admission-core depends on
 * testenv for its tests).
 */
type Json<T> = T extends Date
  ? string
  : T extends readonly (infer U)[]
    ? Json<U>[]
    : T extends object
      ? { [K in keyof T]: Json<T[K]> }
      : T;

function container(name: string, image: string, extraEnv: number) {
  return {
    name,
    image,
    imagePullPolicy: 'IfNotPresent',
    args: ['--port=8888', '--log-level=info', `--name=${name}`],
    ports: [{ name: 'http', containerPort: 8888, protocol: 'TCP' }],
    env: [
      { name: 'NB_PREFIX', value: '/notebook/team-a/notebook-0' },
      {
        name: 'POD_NAME',
        valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } },
      },
      ...Array.from({ length: extraEnv }, (_, i) => ({
        name: `SETTING_${i}`,
        value: `value-${i}`,
      })),
    ],
    resources: {
      requests: { cpu: '500m', memory: '1Gi' },
      limits: { cpu: '2', memory: '4Gi' },
    },
    volumeMounts: [
      { name: 'workspace', mountPath: '/home/jovyan' },
      { name: 'dshm', mountPath: '/dev/shm' },
      {
        name: 'kube-api-access',
        mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
        readOnly: true,
      },
    ],
    readinessProbe: { httpGet: { path: '/api', port: 8888, scheme: 'HTTP' }, periodSeconds: 10 },
    securityContext: {
      allowPrivilegeEscalation: false,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    },
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
  };
}

/** A fresh copy each call: tests and handlers may change it. */
export function notebookPod(name = 'notebook-0', namespace = 'team-a'): Json<V1Pod> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      labels: {
        app: name,
        'notebook-name': name,
        'statefulset.kubernetes.io/pod-name': name,
        'controller-revision-hash': `${name}-6d9f8b7c5`,
        'security.istio.io/tlsMode': 'istio',
        'service.istio.io/canonical-name': name,
      },
      annotations: {
        'kubectl.kubernetes.io/default-container': name,
        'sidecar.istio.io/status':
          '{"initContainers":null,"containers":["istio-proxy"],"volumes":["istio-envoy"]}',
        'poddefault.admission.kubeflow.org/poddefault-access-ml-pipeline': '2391',
      },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'StatefulSet',
          name,
          uid: '4b0d3c9e-8f5a-4d8e-9a43-2f1c7c6f3b21',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      managedFields: [
        {
          manager: 'kube-controller-manager',
          operation: 'Update',
          apiVersion: 'v1',
          time: '2026-11-21T10:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
        },
      ],
    },
    spec: {
      serviceAccountName: 'default-editor',
      hostname: name,
      subdomain: name,
      containers: [
        container(name, 'kubeflownotebookswg/jupyter-scipy:v1.9.0', 12),
        container('istio-proxy', 'docker.io/istio/proxyv2:1.22.1', 8),
        container('log-shipper', 'fluent/fluent-bit:3.0.7', 4),
      ],
      volumes: [
        { name: 'workspace', persistentVolumeClaim: { claimName: `${name}-workspace` } },
        { name: 'dshm', emptyDir: { medium: 'Memory' } },
        {
          name: 'kube-api-access',
          projected: {
            defaultMode: 420,
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
              {
                configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] },
              },
            ],
          },
        },
      ],
      tolerations: [
        {
          key: 'node.kubernetes.io/not-ready',
          operator: 'Exists',
          effect: 'NoExecute',
          tolerationSeconds: 300,
        },
        {
          key: 'node.kubernetes.io/unreachable',
          operator: 'Exists',
          effect: 'NoExecute',
          tolerationSeconds: 300,
        },
      ],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      schedulerName: 'default-scheduler',
      securityContext: { fsGroup: 100 },
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
      priority: 0,
    },
  };
}
