// `kfx uat manifests` as a user runs it (the built binary), and the files checked in under
// manifests/ that scripts/uat-manifests.ts writes from it.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { CHECKED_IN_MANIFESTS, render } from '../../../scripts/uat-manifests.js';

const run = promisify(execFile);
const main = fileURLToPath(new URL('../../../dist/main.js', import.meta.url));
const kfx = (...args: string[]) => run(process.execPath, [main, ...args]);

interface Kube {
  kind: string;
  metadata: { name: string; namespace: string };
  spec?: {
    serviceAccountName?: string;
    arguments?: { parameters: { name: string; value?: string }[] };
    params?: { name: string; default?: string }[];
    templates?: { container: { image: string } }[];
  };
}
const objectsOf = (yaml: string) => parseAllDocuments(yaml).map((d) => d.toJS() as Kube);

describe('kfx uat manifests', () => {
  it('checks in exactly what it prints (pnpm --filter @kfx/cli run manifests rewrites them)', () => {
    for (const { file, args } of CHECKED_IN_MANIFESTS) {
      const checkedIn = readFileSync(
        fileURLToPath(new URL(`../../../${file}`, import.meta.url)),
        'utf8',
      );
      expect(checkedIn, `${file} is stale: run pnpm --filter @kfx/cli run manifests`).toBe(
        render(args),
      );
    }
  });

  it('renders the Argo step in -n with the flags as the parameters’ defaults', async () => {
    const { stdout } = await kfx(
      '-n',
      'ci',
      'uat',
      'manifests',
      '--format',
      'argo',
      '--service-account',
      'uat-runner',
      '--kfx-image',
      'registry.corp/kfx/cli:0.4.0',
      '--image',
      'registry.corp/uats:1.9',
      '--filter',
      'kfp',
    );
    const objects = objectsOf(stdout);
    expect(objects.map((o) => [o.kind, o.metadata.namespace])).toEqual([
      ['ServiceAccount', 'ci'],
      ['Role', 'ci'],
      ['RoleBinding', 'ci'],
      ['WorkflowTemplate', 'ci'],
    ]);
    const template = objects[3];
    expect(template?.spec?.serviceAccountName).toBe('uat-runner');
    expect(template?.spec?.templates?.[0]?.container.image).toBe('registry.corp/kfx/cli:0.4.0');
    const values = Object.fromEntries(
      template?.spec?.arguments?.parameters.map((p) => [p.name, p.value]) ?? [],
    );
    expect(values).toMatchObject({ image: 'registry.corp/uats:1.9', filter: 'kfp' });
  });

  it('renders the Tekton Task with the same parameters', async () => {
    const { stdout } = await kfx(
      'uat',
      'manifests',
      '--format',
      'tekton',
      '--timeout',
      '2h',
      '--artifacts',
      's3://ci-results/uat',
      '--s3-endpoint',
      'http://minio.ci:9000',
    );
    const task = objectsOf(stdout).find((o) => o.kind === 'Task');
    // The same as the Argo step's (checked in: what `--format argo` prints).
    const argoFile = new URL('../../../manifests/uat-argo-workflowtemplate.yaml', import.meta.url);
    const argo = objectsOf(readFileSync(argoFile, 'utf8')).find(
      (o) => o.kind === 'WorkflowTemplate',
    );
    expect(task?.spec?.params?.map((p) => p.name)).toEqual(
      argo?.spec?.arguments?.parameters.map((p) => p.name),
    );
    const defaults = Object.fromEntries(task?.spec?.params?.map((p) => [p.name, p.default]) ?? []);
    expect(defaults).toMatchObject({
      timeout: '2h',
      artifacts: 's3://ci-results/uat',
      's3-endpoint': 'http://minio.ci:9000',
      's3-secret': 'kfx-uat-s3',
    });
  });

  it("runs kfx doctor first with --doctor, as the controller chart's doctor ServiceAccount", async () => {
    const { stdout } = await kfx('uat', 'manifests', '--format', 'argo', '--doctor');
    const template = objectsOf(stdout).find((o) => o.kind === 'WorkflowTemplate') as unknown as
      | { spec: { entrypoint: string; templates: { name: string; serviceAccountName?: string }[] } }
      | undefined;
    expect(template?.spec.entrypoint).toBe('doctor-then-uat');
    expect(template?.spec.templates.find((t) => t.name === 'doctor')?.serviceAccountName).toBe(
      'kfx-controller-doctor',
    );
    const { stdout: own } = await kfx(
      'uat',
      'manifests',
      '--format',
      'tekton',
      '--doctor',
      'uat-doctor',
    );
    expect(own).toContain("give kfx-system:kfx-uat the doctor's rights");
  });

  it('exits 2 naming the flag, without --format or with a bad name', async () => {
    await expect(kfx('uat', 'manifests')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining("'--format <format>' not specified") as unknown,
    });
    await expect(kfx('uat', 'manifests', '--format', 'jenkins')).rejects.toMatchObject({
      code: 2,
    });
    await expect(
      kfx('uat', 'manifests', '--format', 'argo', '--name', 'UAT'),
    ).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--name: "UAT"') as unknown,
    });
    await expect(
      kfx('uat', 'manifests', '--format', 'argo', '--artifacts', 'results/'),
    ).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--artifacts: "results/" is not an S3 location') as unknown,
    });
  });

  it('teaches with --help: the commands that install and run the step', async () => {
    const { stdout } = await kfx('uat', 'manifests', '--help');
    expect(stdout).toContain('kfx uat manifests --format argo | kubectl apply -f -');
    expect(stdout).toContain('argo submit -n kfx-system --from workflowtemplate/kfx-uat');
    expect(stdout).toContain('kfx uat rbac --service-account kfx-system:kfx-uat');
    expect(stdout).toContain('-p artifacts=s3://ci-results/uat/$BUILD_ID');
  });
});
