// The step as an Argo Workflows WorkflowTemplate (argoproj.io/v1alpha1): one container template
// `uat` running `kfx uat run`, its inputs the step's parameters (also the template's arguments,
// so `argo submit --from workflowtemplate/kfx-uat -p image=…` works as well as a `templateRef`
// from another workflow). The suite's exit code is the container's, so the step fails on any
// non-zero code; uat.log, junit.xml and summary.json are its output artifacts, stored unarchived
// in the cluster's artifact repository (kfx's own S3 upload, when asked for, comes on top).
// Argo's executor (the `wait` container) reports outputs as WorkflowTaskResults under the same
// ServiceAccount: a Role grants that and nothing else.
import type { V1Role, V1RoleBinding } from '@kubernetes/client-node';
import type { KubeObject } from '@kfx/kube-runtime/client';
import { argoDoctorTemplate, argoPipelineTemplate } from './doctor-step.js';
import {
  KFX_ENTRYPOINT,
  STEP_GRACE_SECONDS,
  STEP_PATHS,
  STEP_SECURITY_CONTEXT,
  stepEnv,
  stepLabels,
  stepServiceAccount,
  uatRunArgs,
  type ResolvedStep,
  type StepObject,
} from './pipeline-step.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** The artifacts of the step: Argo's name, the file kfx writes. */
export const ARGO_OUTPUTS = [
  { name: 'junit', file: 'junit.xml' },
  { name: 'log', file: 'uat.log' },
  { name: 'summary', file: 'summary.json' },
] as const;

export function argoObjects(step: ResolvedStep): KubeObject[] {
  const labels = stepLabels(step);
  const executor = `${step.name}-argo-executor`;
  const role: V1Role = {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'Role',
    metadata: { name: executor, namespace: step.namespace, labels },
    rules: [
      {
        apiGroups: ['argoproj.io'],
        resources: ['workflowtaskresults'],
        verbs: ['create', 'patch'],
      },
    ],
  };
  const binding: V1RoleBinding = {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'RoleBinding',
    metadata: { name: executor, namespace: step.namespace, labels },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: executor },
    subjects: [{ kind: 'ServiceAccount', name: step.serviceAccount, namespace: step.namespace }],
  };
  return [stepServiceAccount(step), role, binding, workflowTemplate(step)];
}

function workflowTemplate(step: ResolvedStep): StepObject {
  // The workflow's arguments (what `argo submit -p` sets) reach the entrypoint's inputs by name;
  // a `templateRef` from another workflow sets the inputs, whose defaults are the same.
  const optional = (value: string | undefined, key: 'value' | 'default') =>
    value === undefined ? {} : { [key]: value };
  const args = step.parameters.map((p) => ({
    name: p.name,
    description: p.description,
    ...optional(p.default, 'value'),
  }));
  const inputs = step.parameters.map((p) => ({ name: p.name, ...optional(p.default, 'default') }));
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'WorkflowTemplate',
    metadata: { name: step.name, namespace: step.namespace, labels: stepLabels(step) },
    spec: {
      entrypoint: step.doctor === undefined ? 'uat' : 'doctor-then-uat',
      serviceAccountName: step.serviceAccount,
      arguments: { parameters: args },
      templates: [
        ...(step.doctor === undefined
          ? []
          : [
              argoPipelineTemplate(step.parameters),
              argoDoctorTemplate(step.kfxImage, step.doctor),
            ]),
        {
          name: 'uat',
          inputs: { parameters: inputs },
          // kfx deletes what the run made on SIGTERM (`argo stop`, `argo terminate`): give it time.
          podSpecPatch: JSON.stringify({ terminationGracePeriodSeconds: STEP_GRACE_SECONDS }),
          volumes: [
            { name: 'results', emptyDir: {} },
            {
              name: 'env',
              secret: { secretName: '{{inputs.parameters.env-secret}}', optional: true },
            },
          ],
          container: {
            image: step.kfxImage,
            command: [...KFX_ENTRYPOINT],
            args: uatRunArgs((name) => `{{inputs.parameters.${name}}}`),
            env: stepEnv('{{inputs.parameters.s3-secret}}'),
            volumeMounts: [
              { name: 'results', mountPath: STEP_PATHS.results },
              { name: 'env', mountPath: STEP_PATHS.env, readOnly: true },
            ],
            securityContext: STEP_SECURITY_CONTEXT,
          },
          outputs: {
            artifacts: ARGO_OUTPUTS.map(({ name, file }) => ({
              name,
              path: `${STEP_PATHS.results}/${file}`,
              // A run that fails before the suite starts writes no JUnit; the step's phase says why.
              optional: true,
              archive: { none: {} },
            })),
          },
        },
      ],
    },
  };
}
