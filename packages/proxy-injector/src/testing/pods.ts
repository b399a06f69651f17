// A corpus of Pods as the apiserver sends them on CREATE, shaped after the workloads the injector
// exists for: an Argo workflow step, a Katib trial, a KServe predictor with a native sidecar, a
// notebook behind Istio, a test Job that brings its own proxy. Fresh copies on every call.
import type { V1Pod } from '@kubernetes/client-node';
import type { Plain } from '@kfx/admission-core';

export type Pod = Plain<V1Pod>;

/** Argo workflow pod: `wait` sidecar, `init` container, annotations with `/` in their keys. */
export function argoWorkflowPod(): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: 'train-pipeline-',
      namespace: 'team-a',
      labels: { 'workflows.argoproj.io/workflow': 'train-pipeline-x7k2p' },
      annotations: {
        'workflows.argoproj.io/node-name': 'train-pipeline-x7k2p.fetch-data',
        'workflows.argoproj.io/node-id': 'train-pipeline-x7k2p-3361412',
        'kubectl.kubernetes.io/default-container': 'main',
      },
    },
    spec: {
      serviceAccountName: 'default-editor',
      restartPolicy: 'Never',
      initContainers: [
        {
          name: 'init',
          image: 'quay.io/argoproj/argoexec:v3.6.2',
          command: ['argoexec', 'init'],
          env: [
            { name: 'ARGO_POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
            { name: 'ARGO_CONTAINER_NAME', value: 'init' },
          ],
        },
      ],
      containers: [
        {
          name: 'wait',
          image: 'quay.io/argoproj/argoexec:v3.6.2',
          command: ['argoexec', 'wait'],
          env: [{ name: 'ARGO_CONTAINER_NAME', value: 'wait' }],
        },
        {
          name: 'main',
          image: 'python:3.12',
          command: [
            'python',
            '-c',
            'import urllib.request; urllib.request.urlopen("https://pypi.org")',
          ],
          env: [{ name: 'ARGO_CONTAINER_NAME', value: 'main' }],
          envFrom: [{ configMapRef: { name: 'pipeline-settings', optional: true } }],
        },
      ],
    },
  };
}

/** Katib trial: a training container whose credentials come from valueFrom, no env on the collector. */
export function katibTrialPod(): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'mnist-trial-4k9x2-worker-0', namespace: 'team-a' },
    spec: {
      containers: [
        {
          name: 'training-container',
          image: 'kubeflow/pytorch-mnist:v1',
          args: ['--lr=0.01', '--momentum=0.5'],
          env: [
            {
              name: 'AWS_ACCESS_KEY_ID',
              valueFrom: { secretKeyRef: { name: 's3-credentials', key: 'access-key' } },
            },
            {
              name: 'HTTPS_PROXY',
              valueFrom: { configMapKeyRef: { name: 'trial-proxy', key: 'https' } },
            },
          ],
        },
        { name: 'metrics-logger-and-collector', image: 'kubeflowkatib/file-metrics-collector' },
      ],
    },
  };
}

/** KServe predictor with a native sidecar (an init container with restartPolicy Always). */
export function kservePredictorPod(): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: 'sklearn-iris-predictor-00001-deployment-',
      namespace: 'team-b',
      annotations: { 'serving.knative.dev/creator': 'system:serviceaccount:kserve:kserve' },
    },
    spec: {
      initContainers: [
        {
          name: 'storage-initializer',
          image: 'kserve/storage-initializer:v0.14.0',
          args: ['gs://kfserving-examples/models/sklearn/1.0/model', '/mnt/models'],
          env: [],
        },
        {
          name: 'queue-proxy',
          image: 'gcr.io/knative-releases/queue:v1.16',
          restartPolicy: 'Always',
          env: [{ name: 'SERVING_PORT', value: '8012' }],
        },
      ],
      containers: [
        {
          name: 'kserve-container',
          image: 'kserve/sklearnserver:v0.14.0',
          env: [{ name: 'PORT', value: '8080' }],
        },
      ],
    },
  };
}

/** Notebook behind Istio: the mesh sidecar must not be touched by default. */
export function istioNotebookPod(): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'notebook-0',
      namespace: 'team-a',
      annotations: { 'sidecar.istio.io/status': '{"initContainers":["istio-init"]}' },
    },
    spec: {
      initContainers: [{ name: 'istio-init', image: 'istio/proxyv2:1.24.0' }],
      containers: [
        {
          name: 'notebook',
          image: 'kubeflownotebookswg/jupyter-scipy:v1.9.0',
          env: [{ name: 'NB_PREFIX', value: '/notebook/team-a/notebook' }],
        },
        {
          name: 'istio-proxy',
          image: 'istio/proxyv2:1.24.0',
          env: [{ name: 'ISTIO_META_MESH_ID', value: 'cluster.local' }],
        },
      ],
    },
  };
}

/** A test Job's Pod that brings its own lower-case http_proxy (curl reads only that one). */
export function ownProxyPod(): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'uat-runner-x2x9d', namespace: 'test-kubeflow' },
    spec: {
      containers: [
        {
          name: 'tests',
          image: 'python:3.12',
          env: [
            { name: 'http_proxy', value: 'http://test-proxy.example:8080' },
            { name: 'PYTEST_ADDOPTS', value: '-k notebook' },
          ],
        },
      ],
    },
  };
}
