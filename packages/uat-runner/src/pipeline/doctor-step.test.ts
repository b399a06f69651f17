// `kfx doctor` as the pipeline's first step: only when asked for, before the suite, as the
// doctor's ServiceAccount in Argo, with the suite still getting every parameter.
import { describe, expect, it } from 'vitest';
import { pipelineStepObjects, pipelineStepYaml } from './pipeline-manifests.js';

interface Step {
  name: string;
  template?: string;
  arguments?: { parameters: { name: string; value: string }[] };
}
interface Template {
  name: string;
  serviceAccountName?: string;
  steps?: Step[][];
  container?: { args: string[] };
}
interface WorkflowTemplate {
  kind: string;
  spec: {
    entrypoint: string;
    arguments: { parameters: { name: string }[] };
    templates: Template[];
  };
}
interface Task {
  kind: string;
  spec: { steps: { name: string; args: string[] }[] };
}

const find = (objects: readonly object[], kind: string): unknown =>
  objects.find((object) => (object as { kind: string }).kind === kind);

describe('the doctor step', () => {
  it('is not there unless asked for', () => {
    const argo = find(pipelineStepObjects('argo'), 'WorkflowTemplate') as WorkflowTemplate;
    expect(argo.spec.entrypoint).toBe('uat');
    expect(argo.spec.templates.map((t) => t.name)).toEqual(['uat']);
    const tekton = find(pipelineStepObjects('tekton'), 'Task') as Task;
    expect(tekton.spec.steps.map((s) => s.name)).toEqual(['uat']);
  });

  it('in Argo, runs kfx doctor as its ServiceAccount, then the suite with every parameter', () => {
    const argo = find(
      pipelineStepObjects('argo', { doctor: 'kfx-controller-doctor' }),
      'WorkflowTemplate',
    ) as WorkflowTemplate;
    expect(argo.spec.entrypoint).toBe('doctor-then-uat');
    const [pipeline, doctor] = argo.spec.templates;
    expect(pipeline?.steps?.map((group) => group.map((step) => step.template))).toEqual([
      ['doctor'],
      ['uat'],
    ]);
    expect(pipeline?.steps?.[1]?.[0]?.arguments?.parameters.map((p) => p.name)).toEqual(
      argo.spec.arguments.parameters.map((p) => p.name),
    );
    expect(pipeline?.steps?.[1]?.[0]?.arguments?.parameters[0]?.value).toBe(
      '{{workflow.parameters.image}}',
    );
    expect(doctor).toMatchObject({
      name: 'doctor',
      serviceAccountName: 'kfx-controller-doctor',
      container: { args: ['doctor', '--output', 'table'] },
    });
  });

  it('in Tekton, is the Task step before the suite, and the header says whose rights it needs', () => {
    const tekton = find(
      pipelineStepObjects('tekton', { doctor: 'kfx-controller-doctor' }),
      'Task',
    ) as Task;
    expect(tekton.spec.steps.map((s) => s.name)).toEqual(['doctor', 'uat']);
    expect(pipelineStepYaml('tekton', { doctor: 'kfx-controller-doctor' })).toContain(
      "give kfx-system:kfx-uat the doctor's rights (the controller chart's doctor.subjects)",
    );
  });

  it('refuses a ServiceAccount name that is not one, naming the flag', () => {
    expect(() => pipelineStepObjects('argo', { doctor: 'Not A Name' })).toThrow(
      /^--doctor: "Not A Name"/,
    );
  });
});
