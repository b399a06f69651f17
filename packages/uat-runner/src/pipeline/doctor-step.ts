// `kfx doctor` as the first step of the UAT pipeline (option `doctor`: the ServiceAccount with
// its rights, the controller chart's `<release>-doctor`): the suite runs only when the doctor
// finds no error in the cluster (exit 0), so a broken webhook or a stuck Profile fails the
// pipeline with its finding and fix instead of a suite failing for a reason it cannot tell.
// Argo runs it as a template of its own under that ServiceAccount; a Tekton Task runs every
// step as the TaskRun's ServiceAccount, which then needs the doctor's rights too (the chart's
// doctor.subjects).
import { KFX_ENTRYPOINT, STEP_SECURITY_CONTEXT } from './pipeline-step.js';

/** The doctor's command line in the kfx/cli image: every check, one finding per line. */
const DOCTOR_ARGS = ['doctor', '--output', 'table'] as const;

/** The Argo template that runs the doctor as `serviceAccount`. */
export function argoDoctorTemplate(kfxImage: string, serviceAccount: string) {
  return {
    name: 'doctor',
    serviceAccountName: serviceAccount,
    // The doctor needs the API only with its own token.
    automountServiceAccountToken: true,
    container: {
      image: kfxImage,
      command: [...KFX_ENTRYPOINT],
      args: [...DOCTOR_ARGS],
      env: [{ name: 'CI', value: 'true' }],
      securityContext: STEP_SECURITY_CONTEXT,
    },
  };
}

/** The Argo template that runs the doctor, then the suite with the workflow's parameters. */
export function argoPipelineTemplate(parameters: readonly { name: string }[]) {
  return {
    name: 'doctor-then-uat',
    steps: [
      [{ name: 'doctor', template: 'doctor' }],
      [
        {
          name: 'uat',
          template: 'uat',
          arguments: {
            parameters: parameters.map((p) => ({
              name: p.name,
              value: `{{workflow.parameters.${p.name}}}`,
            })),
          },
        },
      ],
    ],
  };
}

/** The Tekton step that runs the doctor before the suite's. */
export function tektonDoctorStep(kfxImage: string) {
  return {
    name: 'doctor',
    image: kfxImage,
    command: [...KFX_ENTRYPOINT],
    args: [...DOCTOR_ARGS],
    env: [{ name: 'CI', value: 'true' }],
    securityContext: STEP_SECURITY_CONTEXT,
  };
}
