// `kfx uat manifests`: the step of a CI pipeline that runs `kfx uat run` inside the cluster, for
// Argo Workflows or Tekton, as objects for `kubectl apply -f -` (pipeline-step.ts says what the
// two share).
import type { KubeObject } from '@kfx/kube-runtime/client';
import { stringify } from 'yaml';
import { argoObjects } from './argo-step.js';
import {
  resolveStep,
  type PipelineFormat,
  type PipelineStepOptions,
  type ResolvedStep,
} from './pipeline-step.js';
import { tektonObjects } from './tekton-step.js';

export function pipelineStepObjects(
  format: PipelineFormat,
  options: PipelineStepOptions = {},
): KubeObject[] {
  const step = resolveStep(options);
  return format === 'argo' ? argoObjects(step) : tektonObjects(step);
}

const HEADER: Record<PipelineFormat, (step: ResolvedStep) => string[]> = {
  argo: ({ name, namespace, serviceAccount, doctor }) => [
    `# kfx uat run as an Argo Workflows step. The identity also needs \`kfx uat rbac\`'s rights:`,
    `#   kfx uat rbac --service-account ${namespace}:${serviceAccount} | kubectl apply -f -`,
    `#   argo submit -n ${namespace} --from workflowtemplate/${name} -p image=<suite image> --watch`,
    ...(doctor === undefined
      ? []
      : [
          `# kfx doctor runs first, as ServiceAccount ${doctor} (the controller chart's doctor.enabled=true makes it), and the suite only when it finds no error.`,
        ]),
  ],
  tekton: ({ name, namespace, serviceAccount, doctor }) => [
    `# kfx uat run as a Tekton Task. The identity also needs \`kfx uat rbac\`'s rights:`,
    `#   kfx uat rbac --service-account ${namespace}:${serviceAccount} | kubectl apply -f -`,
    `# A TaskRun of taskRef ${name} sets serviceAccountName: ${serviceAccount} and binds the workspace "results".`,
    ...(doctor === undefined
      ? []
      : [
          `# kfx doctor runs first, as the TaskRun's ServiceAccount: give ${namespace}:${serviceAccount} the doctor's rights (the controller chart's doctor.subjects).`,
        ]),
  ],
};

/** The objects as a YAML stream, ready for `kubectl apply -f -`. */
export function pipelineStepYaml(
  format: PipelineFormat,
  options: PipelineStepOptions = {},
): string {
  const step = resolveStep(options);
  const header = HEADER[format](step)
    .map((line) => `${line}\n`)
    .join('');
  return (
    header +
    pipelineStepObjects(format, options)
      .map((object) => stringify(object, { lineWidth: 0 }))
      .join('---\n')
  );
}
