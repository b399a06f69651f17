import type { V1Job } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { buildJob, readJobManifest } from './job-spec.js';

const kubeflow = {
  kubeflowNamespace: 'kubeflow',
  pipelinesToken: true,
  istioSidecar: 'native' as const,
};
const base = { runId: 'abcde', namespace: 'test-kubeflow', image: 'uats:1', kubeflow };
const pod = (job: V1Job) => job.spec?.template;
const env = (job: V1Job, i = 0) =>
  Object.fromEntries(
    (pod(job)?.spec?.containers[i]?.env ?? []).map((e) => [e.name, e.value ?? e.valueFrom]),
  );

describe('the Kubeflow namespace variables', () => {
  it('names the Kubeflow namespace and the test namespace as the suites read them', () => {
    const { job } = buildJob(base);
    expect(env(job)).toMatchObject({
      KUBEFLOW_NAMESPACE: 'kubeflow',
      USER_NAMESPACE: 'test-kubeflow',
    });
    const other = buildJob({ ...base, kubeflow: { ...kubeflow, kubeflowNamespace: 'kf' } });
    expect(env(other.job).KUBEFLOW_NAMESPACE).toBe('kf');
  });

  it("lets the run's env and the container's own env win", () => {
    const manifest = readJobManifest(
      `apiVersion: batch/v1
kind: Job
spec:
  template:
    spec:
      containers:
        - name: suite
          image: x
          env: [{ name: USER_NAMESPACE, value: mine }]
`,
      'job.yaml',
    );
    const { job } = buildJob({
      ...base,
      manifest,
      envSecret: 'env',
      envKeys: ['KUBEFLOW_NAMESPACE'],
    });
    const entries = pod(job)?.spec?.containers[0]?.env ?? [];
    expect(entries.filter((e) => e.name === 'USER_NAMESPACE')).toEqual([
      { name: 'USER_NAMESPACE', value: 'mine' },
    ]);
    expect(entries.filter((e) => e.name === 'KUBEFLOW_NAMESPACE')).toEqual([
      {
        name: 'KUBEFLOW_NAMESPACE',
        valueFrom: { secretKeyRef: { name: 'env', key: 'KUBEFLOW_NAMESPACE', optional: true } },
      },
    ]);
  });
});

describe('Kubeflow Pipelines access', () => {
  it('mounts the token of the access-ml-pipeline PodDefault, without its label', () => {
    const { job } = buildJob(base);
    const template = pod(job);
    expect(template?.spec?.volumes).toEqual([
      {
        name: 'volume-kf-pipeline-token',
        projected: {
          sources: [
            {
              serviceAccountToken: {
                path: 'token',
                expirationSeconds: 7200,
                audience: 'pipelines.kubeflow.org',
              },
            },
          ],
        },
      },
    ]);
    expect(template?.spec?.containers[0]?.volumeMounts).toEqual([
      {
        name: 'volume-kf-pipeline-token',
        mountPath: '/var/run/secrets/kubeflow/pipelines',
        readOnly: true,
      },
    ]);
    expect(env(job).KF_PIPELINES_SA_TOKEN_PATH).toBe('/var/run/secrets/kubeflow/pipelines/token');
    // With the label, Kubeflow's webhook would add the PodDefault's volume of the same name, and
    // refuse the Pod because ours (defaulted by the API server) differs from it.
    expect(template?.metadata?.labels?.['access-ml-pipeline']).toBeUndefined();
  });

  it('leaves a pod that asks for the PodDefault to it', () => {
    const manifest = readJobManifest(
      `apiVersion: batch/v1
kind: Job
spec:
  template:
    metadata: { labels: { access-ml-pipeline: "true" } }
    spec: { containers: [{ name: suite, image: x }] }
`,
      'job.yaml',
    );
    const { job } = buildJob({ ...base, manifest });
    expect(pod(job)?.spec?.volumes).toBeUndefined();
    expect(pod(job)?.spec?.containers[0]?.volumeMounts).toBeUndefined();
    expect(env(job).KF_PIPELINES_SA_TOKEN_PATH).toBeUndefined();
    expect(env(job).KUBEFLOW_NAMESPACE).toBe('kubeflow');
  });

  it('keeps a volume or mount of that name the manifest has, and can be turned off', () => {
    const manifest = readJobManifest(
      `apiVersion: batch/v1
kind: Job
spec:
  template:
    spec:
      volumes: [{ name: volume-kf-pipeline-token, emptyDir: {} }]
      containers:
        - name: suite
          image: x
          volumeMounts: [{ name: volume-kf-pipeline-token, mountPath: /token }]
`,
      'job.yaml',
    );
    const { job } = buildJob({ ...base, manifest });
    expect(pod(job)?.spec?.volumes).toEqual([{ name: 'volume-kf-pipeline-token', emptyDir: {} }]);
    expect(pod(job)?.spec?.containers[0]?.volumeMounts).toHaveLength(1);
    const off = buildJob({ ...base, kubeflow: { ...kubeflow, pipelinesToken: false } });
    expect(pod(off.job)?.spec?.volumes).toBeUndefined();
    expect(env(off.job).KF_PIPELINES_SA_TOKEN_PATH).toBeUndefined();
  });
});

describe('the Istio sidecar', () => {
  it('is native by default, so that the Job can complete', () => {
    const { job } = buildJob(base);
    expect(pod(job)?.metadata?.annotations?.['sidecar.istio.io/nativeSidecar']).toBe('true');
  });

  it('is kept out with off, and left to the namespace with inject', () => {
    const off = buildJob({ ...base, kubeflow: { ...kubeflow, istioSidecar: 'off' } });
    expect(pod(off.job)?.metadata?.labels?.['sidecar.istio.io/inject']).toBe('false');
    expect(pod(off.job)?.metadata?.annotations?.['sidecar.istio.io/nativeSidecar']).toBeUndefined();
    const inject = buildJob({ ...base, kubeflow: { ...kubeflow, istioSidecar: 'inject' } });
    expect(pod(inject.job)?.metadata?.annotations).toEqual({});
    expect(pod(inject.job)?.metadata?.labels?.['sidecar.istio.io/inject']).toBeUndefined();
  });

  it("yields to the pod's own annotation", () => {
    const { job } = buildJob({
      ...base,
      podAnnotations: { 'sidecar.istio.io/nativeSidecar': 'false' },
    });
    expect(pod(job)?.metadata?.annotations?.['sidecar.istio.io/nativeSidecar']).toBe('false');
  });
});
