import type { V1Job } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { buildJob, readJobManifest } from './job-spec.js';

const base = { runId: 'abcde', namespace: 'test-kubeflow', image: 'uats:1' };
const spec = (job: V1Job) => job.spec?.template.spec;
const git = { kind: 'git' as const, url: 'https://git.corp/uats.git', ref: 'v1.9' };

describe("the suite's files from git", () => {
  const { job } = buildJob({
    ...base,
    envSecret: 'kfx-uat-abcde-env',
    envKeys: ['HTTPS_PROXY'],
    files: { files: git, image: 'alpine/git:2.45.2', workdir: '/uat' },
  });
  const init = spec(job)?.initContainers?.[0];

  it('clones the ref in an init container, through the run’s proxy settings', () => {
    expect(init?.image).toBe('alpine/git:2.45.2');
    expect(init?.env).toEqual(
      expect.arrayContaining([
        { name: 'KFX_GIT_URL', value: 'https://git.corp/uats.git' },
        { name: 'KFX_GIT_REF', value: 'v1.9' },
        {
          name: 'HTTPS_PROXY',
          valueFrom: {
            secretKeyRef: { name: 'kfx-uat-abcde-env', key: 'HTTPS_PROXY', optional: true },
          },
        },
      ]),
    );
    expect(init?.envFrom).toEqual([{ secretRef: { name: 'kfx-uat-abcde-env', optional: true } }]);
    // git's own message becomes the pod's status, and so the run's reason.
    expect(init?.terminationMessagePolicy).toBe('FallbackToLogsOnError');
  });

  it('ends git’s options before every value it passes on, and refuses option-like ones', () => {
    const script = init?.command?.[2] ?? '';
    const gitLines = script.split('\n').filter((line) => line.startsWith('git '));
    expect(gitLines).toEqual([
      'git -c init.defaultBranch=kfx init -q',
      'git remote add -- origin "$KFX_GIT_URL"',
      'git "$@" fetch -q --depth 1 -- origin "$KFX_GIT_REF"',
      'git checkout -q --detach FETCH_HEAD',
    ]);
    // Before any git command: a value kfx did not check (a Job template filled in later).
    const guards = script.slice(0, script.indexOf('\ngit '));
    expect(guards).toContain('case "$KFX_GIT_URL" in -*)');
    expect(guards).toContain('case "$KFX_GIT_REF" in -*)');
    expect(init?.env).toContainEqual({ name: 'GIT_TERMINAL_PROMPT', value: '0' });
  });

  it('runs it as the restricted Pod Security level demands', () => {
    expect(init?.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 65532,
      runAsGroup: 65532,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
  });

  it("puts the files in the suite's working folder", () => {
    expect(spec(job)?.volumes).toEqual([{ name: 'kfx-suite-files', emptyDir: {} }]);
    const main = spec(job)?.containers[0];
    expect(main?.workingDir).toBe('/uat');
    expect(main?.volumeMounts).toEqual([
      { name: 'kfx-suite-files', mountPath: '/uat', subPath: 'files' },
    ]);
  });

  it('fetches HEAD when no ref is given', () => {
    const built = buildJob({
      ...base,
      files: { files: { kind: 'git', url: 'u' }, image: 'g', workdir: '/uat' },
    });
    expect(spec(built.job)?.initContainers?.[0]?.env).toContainEqual({
      name: 'KFX_GIT_REF',
      value: 'HEAD',
    });
  });
});

describe("the git URL's credentials", () => {
  const { job } = buildJob({
    ...base,
    files: {
      files: {
        ...git,
        credentials: { secret: 'kfx-uat-abcde-git', origin: 'https://git.corp' },
      },
      image: 'g',
      workdir: '/uat',
    },
  });
  const init = spec(job)?.initContainers?.[0];

  it('come from the Secret, mounted into the init container alone', () => {
    expect(spec(job)?.volumes).toContainEqual({
      name: 'kfx-suite-git',
      secret: { secretName: 'kfx-uat-abcde-git' },
    });
    expect(init?.volumeMounts).toContainEqual({
      name: 'kfx-suite-git',
      mountPath: '/kfx-suite-git',
      readOnly: true,
    });
    expect(spec(job)?.containers[0]?.volumeMounts?.map((m) => m.name)).not.toContain(
      'kfx-suite-git',
    );
    expect(init?.env).toEqual(
      expect.arrayContaining([
        { name: 'KFX_GIT_CREDENTIALS', value: '/kfx-suite-git/credentials' },
        { name: 'KFX_GIT_CREDENTIALS_FOR', value: 'https://git.corp' },
      ]),
    );
  });

  it('reach git through a credential helper for their origin only', () => {
    expect(init?.command?.[2]).toContain(
      `set -- -c credential.helper= -c "credential.$KFX_GIT_CREDENTIALS_FOR.helper="'!f() { if [ "$1" = get ]; then cat "$KFX_GIT_CREDENTIALS"; fi; }; f'`,
    );
  });
});

describe("the suite's files from a folder", () => {
  it('unpacks the Secret into the working folder', () => {
    const { job } = buildJob({
      ...base,
      files: {
        files: { kind: 'archive', secret: 'kfx-uat-abcde-files', folder: 'tests' },
        image: 'alpine/git:2.45.2',
        workdir: '/work',
      },
    });
    const init = spec(job)?.initContainers?.[0];
    expect(init?.command?.[2]).toContain('tar -xzf "$KFX_ARCHIVE" -C "$KFX_FILES"');
    expect(spec(job)?.volumes).toContainEqual({
      name: 'kfx-suite-archive',
      secret: { secretName: 'kfx-uat-abcde-files' },
    });
    expect(init?.volumeMounts).toContainEqual({
      name: 'kfx-suite-archive',
      mountPath: '/kfx-suite-archive',
      readOnly: true,
    });
    expect(spec(job)?.containers[0]?.workingDir).toBe('/work');
  });

  it("keeps the manifest's working folder and refuses clashing names", () => {
    const manifest = readJobManifest(
      `apiVersion: batch/v1
kind: Job
spec:
  template:
    spec:
      containers:
        - { name: suite, image: x, workingDir: /uat/tests }
`,
      'job.yaml',
    );
    const files = { files: git, image: 'g', workdir: '/uat' };
    const { job } = buildJob({ ...base, manifest, files });
    expect(spec(job)?.containers[0]?.workingDir).toBe('/uat/tests');
    const clash = structuredClone(manifest);
    const podSpec = clash.spec?.template.spec;
    if (podSpec) podSpec.volumes = [{ name: 'kfx-suite-files', emptyDir: {} }];
    expect(() => buildJob({ ...base, manifest: clash, manifestSource: 'job.yaml', files })).toThrow(
      'job.yaml: the pod already has a volume named kfx-suite-files',
    );
  });
});
