// The public API of @kfx/uat-runner: `runUat` with its options, result and events, the clean-up
// of dead runs, the runner's RBAC, and the parsers behind `kfx uat run`'s inputs (env file, Job
// manifest, command line, durations, run ids, the git source), with the errors they throw.
// Building the Job, judging a run's state and deadlines, and reading JUnit stay internal.
export { splitCommand } from './inputs/command-line.js';
export { parseDuration } from './base/duration.js';
export { EnvFileError, parseEnvFile } from './inputs/env-file.js';
export { readEnvFolder } from './inputs/env-folder.js';
export { checkGitSource, type GitInput } from './inputs/git-source.js';
export type { Reporter, RunEvent, StepName, StepStatus } from './events.js';
export { readJobManifest } from './job/job-spec.js';
export type { IstioSidecarMode } from './job/kubeflow-pod.js';
export { JUNIT_BEGIN, JUNIT_END } from './log/junit-wrapper.js';
export { cleanLeftovers, type LeftoverOptions, type LeftoverReport } from './cleanup/leftovers.js';
export { ANNOTATIONS, isRunId, LABELS, newRunId } from './base/names.js';
export type { CreateNamespaceMode } from './profile/namespace.js';
export { UatError, UatInputError, type Outcome } from './base/outcome.js';
export { pipelineStepObjects, pipelineStepYaml } from './pipeline/pipeline-manifests.js';
export type { PipelineFormat, PipelineStepOptions } from './pipeline/pipeline-step.js';
export { proxyEnvFrom } from './inputs/proxy-env.js';
export {
  parseServiceAccount,
  rbacObjects,
  rbacYaml,
  type RbacOptions,
  type RbacSubject,
} from './profile/rbac.js';
export { runUat } from './run.js';
export type { S3Options } from './artifacts/s3-client.js';
export { isS3Url } from './artifacts/spyglass.js';
export type { UploadReport } from './artifacts/upload.js';
export {
  RUN_DEFAULTS,
  type StepRecord,
  type UatResult,
  type UatRunOptions,
} from './run-options.js';
