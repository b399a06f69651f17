import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ARGO_OUTPUTS } from './argo-step.js';
import { pipelineStepObjects, pipelineStepYaml } from './pipeline-manifests.js';
import { STEP_GRACE_SECONDS } from './pipeline-step.js';
import { RUN_DEFAULTS } from '../run-options.js';

interface Container {
  image: string;
  command: string[];
  args: string[];
  env: {
    name: string;
    value?: string;
    valueFrom?: { secretKeyRef: { name: string; key: string; optional: boolean } };
  }[];
  volumeMounts: { name: string; mountPath: string }[];
}
interface ArgoTemplate {
  name: string;
  inputs: { parameters: { name: string; default?: string }[] };
  podSpecPatch: string;
  volumes: { name: string; secret?: { secretName: string; optional: boolean } }[];
  container: Container;
  outputs: { artifacts: { name: string; path: string; optional: boolean }[] };
}
interface WorkflowTemplate {
  kind: string;
  metadata: { name: string; namespace: string };
  spec: {
    entrypoint: string;
    serviceAccountName: string;
    arguments: { parameters: { name: string; value?: string }[] };
    templates: ArgoTemplate[];
  };
}
interface Binding {
  kind: string;
  roleRef: { name: string };
  subjects: { kind: string; name: string; namespace: string }[];
}

const byKind = (objects: readonly object[], kind: string): unknown =>
  objects.find((o) => (o as { kind: string }).kind === kind);

/** The value that follows `flag` in an argument list. */
const after = (args: readonly string[], flag: string) => args[args.indexOf(flag) + 1];

const PARAMETERS = [
  'image',
  'command',
  'filter',
  'profile',
  'env-secret',
  'timeout',
  'artifacts',
  's3-endpoint',
  's3-secret',
];

describe('the Argo WorkflowTemplate', () => {
  const objects = pipelineStepObjects('argo');
  const template = byKind(objects, 'WorkflowTemplate') as WorkflowTemplate;
  const uat = template.spec.templates.find((t) => t.name === template.spec.entrypoint);
  if (!uat) throw new Error('no entrypoint template');

  it('runs kfx uat run from the kfx/cli image, every parameter on its flag', () => {
    expect(uat.container.image).toBe('kfx/cli:latest');
    expect(uat.container.command).toEqual(['node', '/app/main.js']);
    expect(uat.container.args.slice(0, 2)).toEqual(['uat', 'run']);
    for (const [flag, parameter] of [
      ['--image', 'image'],
      ['--command', 'command'],
      ['--filter', 'filter'],
      ['--profile', 'profile'],
      ['--timeout', 'timeout'],
    ]) {
      expect(after(uat.container.args, flag ?? '')).toBe(`{{inputs.parameters.${parameter}}}`);
    }
  });

  it('takes the same parameters as the workflow’s arguments and as the template’s inputs', () => {
    expect(template.spec.arguments.parameters.map((p) => p.name)).toEqual(PARAMETERS);
    expect(uat.inputs.parameters.map((p) => p.name)).toEqual(PARAMETERS);
    // The suite's image has no default: every run names it.
    expect(template.spec.arguments.parameters[0]).not.toHaveProperty('value');
    expect(uat.inputs.parameters[0]).not.toHaveProperty('default');
    expect(uat.inputs.parameters.find((p) => p.name === 'profile')?.default).toBe(
      RUN_DEFAULTS.profile,
    );
  });

  it('runs as the ServiceAccount it makes, which may report its outputs to Argo', () => {
    const account = byKind(objects, 'ServiceAccount') as {
      metadata: { name: string; namespace: string };
    };
    expect(account.metadata).toMatchObject({ name: 'kfx-uat', namespace: 'kfx-system' });
    expect(template.spec.serviceAccountName).toBe('kfx-uat');
    const binding = byKind(objects, 'RoleBinding') as Binding;
    expect(binding.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'kfx-uat', namespace: 'kfx-system' },
    ]);
    const role = byKind(objects, 'Role') as { rules: { resources: string[]; verbs: string[] }[] };
    expect(role.rules).toEqual([
      expect.objectContaining({ resources: ['workflowtaskresults'], verbs: ['create', 'patch'] }),
    ]);
  });

  it('hands the suite the optional Secret as a folder, and keeps the results as artifacts', () => {
    const env = uat.volumes.find((v) => v.secret);
    expect(env?.secret).toEqual({
      secretName: '{{inputs.parameters.env-secret}}',
      optional: true,
    });
    const mount = uat.container.volumeMounts.find((m) => m.name === env?.name);
    expect(after(uat.container.args, '--env')).toBe(mount?.mountPath);
    const results = after(uat.container.args, '--artifacts');
    expect(uat.container.volumeMounts.map((m) => m.mountPath)).toContain(results);
    expect(uat.outputs.artifacts.map((a) => [a.name, a.path])).toEqual(
      ARGO_OUTPUTS.map((o) => [o.name, `${results}/${o.file}`]),
    );
    expect(uat.outputs.artifacts.every((a) => a.optional)).toBe(true);
  });

  it('uploads to S3 only when the artifacts parameter is set, with the Secret’s credentials', () => {
    const args = uat.container.args;
    // Two --artifacts: the results folder Argo keeps, and the S3 location (empty: none).
    const targets = args.flatMap((arg, i) => (arg === '--artifacts' ? [args[i + 1]] : []));
    expect(targets).toEqual(['/kfx-uat/results', '{{inputs.parameters.artifacts}}']);
    expect(after(args, '--s3-endpoint')).toBe('{{inputs.parameters.s3-endpoint}}');
    const defaults = Object.fromEntries(uat.inputs.parameters.map((p) => [p.name, p.default]));
    expect(defaults).toMatchObject({ artifacts: '', 's3-endpoint': '', 's3-secret': 'kfx-uat-s3' });
    expect(uat.container.env).toEqual([
      { name: 'CI', value: 'true' },
      ...['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'].map((key) => ({
        name: key,
        valueFrom: {
          secretKeyRef: { name: '{{inputs.parameters.s3-secret}}', key, optional: true },
        },
      })),
    ]);
  });

  it('gives kfx its clean-up time after SIGTERM', () => {
    const patch = JSON.parse(uat.podSpecPatch) as { terminationGracePeriodSeconds: number };
    expect(patch.terminationGracePeriodSeconds).toBe(STEP_GRACE_SECONDS);
    expect(STEP_GRACE_SECONDS).toBeGreaterThan((2 * RUN_DEFAULTS.cleanupTimeoutMs) / 1000);
  });

  it('takes the defaults, names and namespace from the options', () => {
    const custom = pipelineStepObjects('argo', {
      name: 'uats',
      namespace: 'ci',
      serviceAccount: 'runner',
      kfxImage: 'registry.corp/kfx/cli:0.4.0',
      image: 'registry.corp/uats:1.9',
      filter: 'kfp',
      timeout: '90m',
      artifacts: 's3://ci-results/uat',
      s3Endpoint: 'http://minio.ci:9000',
      s3Secret: 'minio-ci',
    });
    const t = byKind(custom, 'WorkflowTemplate') as WorkflowTemplate;
    expect(t.metadata).toMatchObject({ name: 'uats', namespace: 'ci' });
    expect(t.spec.serviceAccountName).toBe('runner');
    expect(t.spec.templates[0]?.container.image).toBe('registry.corp/kfx/cli:0.4.0');
    const values = Object.fromEntries(t.spec.arguments.parameters.map((p) => [p.name, p.value]));
    expect(values).toMatchObject({
      image: 'registry.corp/uats:1.9',
      filter: 'kfp',
      timeout: '90m',
      artifacts: 's3://ci-results/uat',
      's3-endpoint': 'http://minio.ci:9000',
      's3-secret': 'minio-ci',
    });
    for (const object of custom) {
      expect((object as { metadata: { namespace: string } }).metadata.namespace).toBe('ci');
    }
  });
});

describe('pipelineStepYaml', () => {
  it('is a stream of the objects, without YAML anchors, behind a header that says how to use it', () => {
    for (const format of ['argo', 'tekton'] as const) {
      const text = pipelineStepYaml(format);
      expect(text).not.toMatch(/[&*]a\d/);
      expect(text).toContain('kfx uat rbac --service-account kfx-system:kfx-uat');
      const documents = parseAllDocuments(text).map((d) => d.toJS() as unknown);
      expect(documents).toEqual(pipelineStepObjects(format));
    }
    expect(pipelineStepYaml('argo')).toContain(
      'argo submit -n kfx-system --from workflowtemplate/kfx-uat',
    );
  });

  it('names the flag of a bad value', () => {
    expect(() => pipelineStepObjects('argo', { name: 'UATs' })).toThrow(/--name: "UATs"/);
    expect(() => pipelineStepObjects('tekton', { envSecret: 'a_b' })).toThrow(/--env-secret/);
    expect(() => pipelineStepObjects('argo', { timeout: 'soon' })).toThrow(/--timeout/);
    expect(() => pipelineStepObjects('argo', { artifacts: 'results/' })).toThrow(
      /--artifacts: "results\/" is not an S3 location/,
    );
    expect(() => pipelineStepObjects('tekton', { s3Endpoint: 'minio:9000' })).toThrow(
      /--s3-endpoint: "minio:9000" is not an http\(s\) URL/,
    );
    expect(() => pipelineStepObjects('argo', { s3Secret: 'S3' })).toThrow(/--s3-secret: "S3"/);
  });
});
