// The Tekton Task is not run in CI (the Tekton module is not served), so it is checked against
// the facts of Tekton's published v1 schema (tektoncd/pipeline pkg/apis/pipeline/v1:
// task_types.go, container_types.go, param_types.go, workspace_types.go, result_types.go) and
// its validation rules: only fields the types have, string parameters whose names Tekton
// accepts, every `$(params.…)` and `$(workspaces.…)` declared, every volume mounted declared.
import { describe, expect, it } from 'vitest';
import { pipelineStepObjects } from './pipeline-manifests.js';

const FIELDS = {
  taskSpec: [
    'params',
    'displayName',
    'description',
    'steps',
    'volumes',
    'stepTemplate',
    'sidecars',
    'workspaces',
    'results',
  ],
  step: [
    'name',
    'image',
    'command',
    'args',
    'workingDir',
    'envFrom',
    'env',
    'computeResources',
    'volumeMounts',
    'volumeDevices',
    'imagePullPolicy',
    'securityContext',
    'script',
    'timeout',
    'workspaces',
    'onError',
    'stdoutConfig',
    'stderrConfig',
    'ref',
  ],
  paramSpec: ['name', 'type', 'description', 'properties', 'default', 'enum'],
  workspace: ['name', 'description', 'mountPath', 'readOnly', 'optional'],
} as const;
const PARAM_TYPES = ['string', 'array', 'object'];
/** Tekton v1: letters, digits, "-", "_" and "."; starting with a letter or "_". */
const PARAM_NAME = /^[a-zA-Z_][a-zA-Z0-9_.-]*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

interface Step {
  name: string;
  args: string[];
  env?: { name: string; valueFrom?: { secretKeyRef: { name: string } } }[];
  command?: string[];
  script?: string;
  volumeMounts?: { name: string; mountPath: string }[];
}
interface Task {
  apiVersion: string;
  kind: string;
  spec: {
    params: { name: string; type: string; default?: string }[];
    steps: Step[];
    volumes: { name: string }[];
    workspaces: { name: string; mountPath?: string }[];
  };
}

const task = pipelineStepObjects('tekton').find(
  (o) => (o as { kind: string }).kind === 'Task',
) as unknown as Task;

/** The Argo step's parameters, which the Task's must equal. */
const argoParameters = (
  pipelineStepObjects('argo').find(
    (o) => (o as { kind: string }).kind === 'WorkflowTemplate',
  ) as unknown as { spec: { arguments: { parameters: { name: string }[] } } }
).spec.arguments.parameters.map((p) => p.name);

const keysOutside = (object: object, allowed: readonly string[]) =>
  Object.keys(object).filter((key) => !allowed.includes(key));

describe('the Tekton Task, against Tekton’s v1 schema', () => {
  it('is a tekton.dev/v1 Task with only the fields Tekton’s types have', () => {
    expect([task.apiVersion, task.kind]).toEqual(['tekton.dev/v1', 'Task']);
    expect(keysOutside(task.spec, FIELDS.taskSpec)).toEqual([]);
    for (const step of task.spec.steps) expect(keysOutside(step, FIELDS.step)).toEqual([]);
    for (const p of task.spec.params) expect(keysOutside(p, FIELDS.paramSpec)).toEqual([]);
    for (const w of task.spec.workspaces) expect(keysOutside(w, FIELDS.workspace)).toEqual([]);
  });

  it('declares string parameters Tekton accepts, the same as the Argo step’s', () => {
    expect(task.spec.params.map((p) => p.name)).toEqual(argoParameters);
    for (const p of task.spec.params) {
      expect(p.name).toMatch(PARAM_NAME);
      expect(PARAM_TYPES).toContain(p.type);
      expect(p.type).toBe('string');
    }
    expect(task.spec.params[0]).not.toHaveProperty('default');
  });

  it('references only declared parameters, workspaces and volumes', () => {
    const text = JSON.stringify(task.spec);
    const params = [...text.matchAll(/\$\(params\.([^)]+)\)/g)].map((m) => m[1]);
    expect(params.length).toBeGreaterThan(0);
    for (const name of params) expect(task.spec.params.map((p) => p.name)).toContain(name);
    const workspaces = [...text.matchAll(/\$\(workspaces\.([^.)]+)\.path\)/g)].map((m) => m[1]);
    expect(workspaces).toEqual(['results']);
    for (const name of workspaces) {
      expect(task.spec.workspaces.map((w) => w.name)).toContain(name);
    }
    for (const step of task.spec.steps) {
      expect(step.name).toMatch(DNS_LABEL);
      // A step has a command or a script, never both.
      expect(step.command !== undefined && step.script !== undefined).toBe(false);
      for (const mount of step.volumeMounts ?? []) {
        expect(task.spec.volumes.map((v) => v.name)).toContain(mount.name);
        expect(mount.mountPath.startsWith('/tekton/')).toBe(false);
      }
    }
  });

  it('writes the results into the workspace, and to S3 when the artifacts parameter is set', () => {
    const args = task.spec.steps[0]?.args ?? [];
    const targets = args.flatMap((arg, i) => (arg === '--artifacts' ? [args[i + 1]] : []));
    expect(targets).toEqual(['$(workspaces.results.path)', '$(params.artifacts)']);
    expect(args[args.indexOf('--s3-endpoint') + 1]).toBe('$(params.s3-endpoint)');
    // Tekton substitutes parameters in a step's secretKeyRef names (container_replacements.go).
    const names = task.spec.steps[0]?.env?.map((e) => e.valueFrom?.secretKeyRef.name);
    expect(names).toEqual([undefined, '$(params.s3-secret)', '$(params.s3-secret)']);
  });
});
