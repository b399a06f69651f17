import type { V1Job } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { buildJob, readJobManifest } from './job-spec.js';
import { JUNIT_BEGIN } from '../log/junit-wrapper.js';

const base = { runId: 'abcde', namespace: 'test-kubeflow' };
const podSpec = (job: V1Job) => job.spec?.template.spec;

const manifest = `
apiVersion: batch/v1
kind: Job
metadata:
  generateName: notebooks-
  labels: { team: ml }
spec:
  backoffLimit: 2
  template:
    metadata:
      annotations: { sidecar.istio.io/inject: "false" }
    spec:
      serviceAccountName: tester
      containers:
        - name: sidecar
          image: busybox
        - name: tests
          image: registry.corp/uats:1.0
          command: [pytest]
          args: [-x, tests/]
          envFrom: [{ secretRef: { name: creds } }]
`;

describe('buildJob from --image', () => {
  it('applies the defaults a UAT Job needs', () => {
    const { job, name, container } = buildJob({
      ...base,
      image: 'uats:1',
      command: ['pytest', '-x'],
      envSecret: 'kfx-uat-abcde-env',
      envKeys: ['NO_PROXY'],
      activeDeadlineSeconds: 3600,
      ttlSecondsAfterFinished: 600,
      expires: '2030-01-01T01:15:00.000Z',
    });
    expect(name).toBe('kfx-uat-abcde');
    expect(container).toBe('suite');
    expect(job.metadata?.namespace).toBe('test-kubeflow');
    expect(job.metadata?.labels?.['uat.kfx.dev/run-id']).toBe('abcde');
    expect(job.spec?.template.metadata?.labels?.['uat.kfx.dev/run-id']).toBe('abcde');
    expect(job.spec?.backoffLimit).toBe(0);
    expect(job.spec?.activeDeadlineSeconds).toBe(3600);
    // A runner killed outright leaves a Job the cluster stops, removes, and a later run can date.
    expect(job.spec?.ttlSecondsAfterFinished).toBe(600);
    expect(job.metadata?.annotations).toEqual({
      'uat.kfx.dev/expires': '2030-01-01T01:15:00.000Z',
    });
    expect(podSpec(job)?.restartPolicy).toBe('Never');
    expect(podSpec(job)?.serviceAccountName).toBe('default-editor');
    expect(podSpec(job)?.containers[0]).toEqual({
      name: 'suite',
      image: 'uats:1',
      command: ['pytest', '-x'],
      envFrom: [{ secretRef: { name: 'kfx-uat-abcde-env', optional: true } }],
      // Also in env, where a webhook's injected NO_PROXY (which beats envFrom) would otherwise win.
      env: [
        {
          name: 'NO_PROXY',
          valueFrom: {
            secretKeyRef: { name: 'kfx-uat-abcde-env', key: 'NO_PROXY', optional: true },
          },
        },
      ],
    });
  });

  it('passes --filter to the suite as -k after its own args', () => {
    const { job } = buildJob({ ...base, image: 'uats:1', filter: 'kfp and not slow' });
    expect(podSpec(job)?.containers[0]?.args).toEqual(['-k', 'kfp and not slow']);
  });

  it('wraps the command when the suite writes a JUnit file', () => {
    const { job } = buildJob({
      ...base,
      image: 'uats:1',
      command: ['pytest', '--junitxml=/tmp/junit.xml'],
      filter: 'kfp',
      junitFile: '/tmp/junit.xml',
    });
    const main = podSpec(job)?.containers[0];
    expect(main?.command?.slice(0, 2)).toEqual(['/bin/sh', '-c']);
    expect(main?.command?.[2]).toContain(JUNIT_BEGIN);
    expect(main?.command?.slice(3)).toEqual([
      'kfx-uat',
      'pytest',
      '--junitxml=/tmp/junit.xml',
      '-k',
      'kfp',
    ]);
    expect(main?.args).toBeUndefined();
  });

  it('refuses to run nothing', () => {
    expect(() => buildJob(base)).toThrow('give --image (and --command) or --job FILE');
    expect(() => buildJob({ ...base, image: 'x', filter: ' ' })).toThrow('--filter');
    expect(() => buildJob({ ...base, image: 'x', junitFile: '/r.xml' })).toThrow(
      /--junit-file needs the suite's command/,
    );
  });
});

describe('the env file in the suite', () => {
  it('sets each key in env from the Secret, leaving a container its own entries', () => {
    const { job } = buildJob({
      ...base,
      image: 'uats:1',
      envSecret: 'env',
      envKeys: ['HTTP_PROXY', 'NO_PROXY'],
      manifest: readJobManifest(
        `apiVersion: batch/v1
kind: Job
metadata: { name: t }
spec:
  template:
    spec:
      containers:
        - name: suite
          image: x
          env: [{ name: NO_PROXY, value: .corp }]
`,
        'job.yaml',
      ),
      manifestSource: 'job.yaml',
    });
    expect(podSpec(job)?.containers[0]?.env).toEqual([
      { name: 'NO_PROXY', value: '.corp' },
      {
        name: 'HTTP_PROXY',
        valueFrom: { secretKeyRef: { name: 'env', key: 'HTTP_PROXY', optional: true } },
      },
    ]);
  });
});

describe('buildJob from a manifest', () => {
  const job = readJobManifest(manifest, 'job.yaml');

  it("keeps the manifest's choices and adds what the runner needs", () => {
    const built = buildJob({
      ...base,
      manifest: job,
      manifestSource: 'job.yaml',
      container: 'tests',
      envSecret: 'env',
      ttlSecondsAfterFinished: 600,
      podAnnotations: { 'kwok.kfx.dev/run-for': '1s' },
      filter: 'kfp',
    });
    expect(built.name).toBe('notebooks-abcde');
    expect(built.container).toBe('tests');
    expect(built.job.metadata?.generateName).toBeUndefined();
    expect(built.job.metadata?.labels).toMatchObject({ team: 'ml', 'uat.kfx.dev/run-id': 'abcde' });
    expect(built.job.spec?.backoffLimit).toBe(2);
    expect(built.job.spec?.template.metadata?.annotations).toEqual({
      'sidecar.istio.io/inject': 'false',
      'kwok.kfx.dev/run-for': '1s',
    });
    const spec = podSpec(built.job);
    expect(spec?.serviceAccountName).toBe('tester');
    expect(spec?.containers[1]?.args).toEqual(['-x', 'tests/', '-k', 'kfp']);
    expect(spec?.containers[1]?.envFrom).toEqual([
      { secretRef: { name: 'creds' } },
      { secretRef: { name: 'env', optional: true } },
    ]);
    expect(spec?.containers[0]?.envFrom).toEqual([{ secretRef: { name: 'env', optional: true } }]);
  });

  it('does not change the manifest it was given', () => {
    buildJob({ ...base, manifest: job, image: 'other:2' });
    expect(podSpec(job)?.containers[0]?.image).toBe('busybox');
  });

  it('lets flags override the image, the command and the service account', () => {
    const built = buildJob({
      ...base,
      manifest: job,
      container: 'tests',
      image: 'uats:2',
      command: ['make', 'test'],
      serviceAccountName: 'ci',
    });
    const main = podSpec(built.job)?.containers[1];
    expect(main?.image).toBe('uats:2');
    expect(main?.command).toEqual(['make', 'test']);
    expect(main?.args).toBeUndefined();
    expect(podSpec(built.job)?.serviceAccountName).toBe('ci');
  });

  it('names the file and the field of a mistake', () => {
    expect(() =>
      buildJob({ ...base, manifest: job, manifestSource: 'job.yaml', container: 'x' }),
    ).toThrow(
      'job.yaml: no container named "x" in spec.template.spec.containers (containers: sidecar, tests)',
    );
    const elsewhere = structuredClone(job);
    elsewhere.metadata = { namespace: 'kubeflow' };
    expect(() => buildJob({ ...base, manifest: elsewhere, manifestSource: 'job.yaml' })).toThrow(
      /job\.yaml: metadata\.namespace is "kubeflow"/,
    );
    const noImage = readJobManifest(
      'apiVersion: batch/v1\nkind: Job\nspec: {template: {spec: {containers: [{name: a}]}}}',
      'j.yaml',
    );
    expect(() => buildJob({ ...base, manifest: noImage, manifestSource: 'j.yaml' })).toThrow(
      'j.yaml: spec.template.spec.containers[0].image is empty; set it or pass --image',
    );
  });
});

describe('readJobManifest', () => {
  it.each([
    ['', 'j.yaml: expected one Job document, found 0'],
    ['kind: Job\n---\nkind: Job\n', 'j.yaml: expected one Job document, found 2'],
    ['- a\n', 'j.yaml: expected a Job object, found object'],
    [
      'apiVersion: v1\nkind: Pod\n',
      'j.yaml: expected kind Job with apiVersion batch/v1, found kind Pod apiVersion v1',
    ],
    [
      'apiVersion: batch/v1\nkind: Job\nspec: {}\n',
      'j.yaml: spec.template.spec.containers must list at least one container',
    ],
    [
      'apiVersion: batch/v1\nkind: Job\nspec: {template: {spec: {containers: [{image: x}]}}}\n',
      'j.yaml: spec.template.spec.containers[0].name is missing',
    ],
    ['kind: [Job\n', 'j.yaml: not valid YAML'],
  ])('rejects %j', (text, message) => {
    expect(() => readJobManifest(text, 'j.yaml')).toThrow(message);
  });
});
