// The step as a Tekton Task (tekton.dev/v1): one step running `kfx uat run` with the same
// parameters as the Argo WorkflowTemplate, writing uat.log, junit.xml and summary.json into the
// workspace `results` (bind a PVC, or an emptyDir and read them from the log). The TaskRun fails
// when kfx exits non-zero; cancelling it deletes the Pod, whose SIGTERM kfx answers by cleaning up.
// The TaskRun names the ServiceAccount (`serviceAccountName`): a Task cannot.
import type { KubeObject } from '@kfx/kube-runtime/client';
import { tektonDoctorStep } from './doctor-step.js';
import {
  KFX_ENTRYPOINT,
  STEP_PATHS,
  STEP_SECURITY_CONTEXT,
  stepEnv,
  stepLabels,
  stepServiceAccount,
  uatRunArgs,
  type ResolvedStep,
  type StepObject,
} from './pipeline-step.js';

export function tektonObjects(step: ResolvedStep): KubeObject[] {
  return [stepServiceAccount(step), task(step)];
}

function task(step: ResolvedStep): StepObject {
  return {
    apiVersion: 'tekton.dev/v1',
    kind: 'Task',
    metadata: { name: step.name, namespace: step.namespace, labels: stepLabels(step) },
    spec: {
      description:
        'Run a user-acceptance test suite in a test Profile with kfx uat run: its log, JUnit and summary in the workspace "results"; the TaskRun fails when the suite fails (exit 1) or cannot run (2).',
      params: step.parameters.map((p) => ({
        name: p.name,
        type: 'string',
        description: p.description,
        ...(p.default === undefined ? {} : { default: p.default }),
      })),
      workspaces: [
        {
          name: 'results',
          description: 'Where uat.log, junit.xml and summary.json are written.',
          mountPath: STEP_PATHS.results,
        },
      ],
      volumes: [{ name: 'env', secret: { secretName: '$(params.env-secret)', optional: true } }],
      steps: [
        ...(step.doctor === undefined ? [] : [tektonDoctorStep(step.kfxImage)]),
        {
          name: 'uat',
          image: step.kfxImage,
          command: [...KFX_ENTRYPOINT],
          args: uatRunArgs((name) => `$(params.${name})`).map((arg) =>
            arg === STEP_PATHS.results ? '$(workspaces.results.path)' : arg,
          ),
          env: stepEnv('$(params.s3-secret)'),
          volumeMounts: [{ name: 'env', mountPath: STEP_PATHS.env, readOnly: true }],
          securityContext: STEP_SECURITY_CONTEXT,
        },
      ],
    },
  };
}
