// The public API of @kfx/uat-runner: `runUat` with its options, result and events, the clean-up
// of dead runs, the runner's RBAC, and the parsers behind `kfx uat run`'s inputs (env file, Job
// manifest, command line, durations, run ids, the git source), with the errors they throw.
// Building the Job, judging a run's state and deadlines, and reading JUnit stay internal.
export { splitCommand } from './command-line.js';
export { parseDuration } from './duration.js';
export { EnvFileError, parseEnvFile } from './env-file.js';
export { readEnvFolder } from './env-folder.js';
export { checkGitSource, type GitInput } from './git-source.js';
export type { Reporter, RunEvent, StepName, StepStatus } from './events.js';
export { readJobManifest } from './job-spec.js';
export type { IstioSidecarMode } from './kubeflow-pod.js';
export { JUNIT_BEGIN, JUNIT_END } from './junit-wrapper.js';
export { cleanLeftovers, type LeftoverOptions, type LeftoverReport } from './leftovers.js';
export { ANNOTATIONS, isRunId, LABELS, newRunId } from './names.js';
export type { CreateNamespaceMode } from './namespace.js';
export { UatError, UatInputError, type Outcome } from './outcome.js';
export { pipelineStepObjects, pipelineStepYaml } from './pipeline-manifests.js';
export type { PipelineFormat, PipelineStepOptions } from './pipeline-step.js';
export { proxyEnvFrom } from './proxy-env.js';
export {
  parseServiceAccount,
  rbacObjects,
  rbacYaml,
  type RbacOptions,
  type RbacSubject,
} from './rbac.js';
export { runUat } from './run.js';
export type { S3Options } from './s3-client.js';
export { isS3Url } from './spyglass.js';
export type { UploadReport } from './upload.js';
export {
  RUN_DEFAULTS,
  type StepRecord,
  type UatResult,
  type UatRunOptions,
} from './run-options.js';
