export { ARTIFACT_FILES } from './artifacts.js';
export { splitCommand } from './command-line.js';
export { formatDuration, parseDuration } from './duration.js';
export { EnvFileError, parseEnvFile } from './env-file.js';
export type { Reporter, RunEvent, StepName, StepStatus } from './events.js';
export {
  EXPIRY_SLACK_MS,
  judgeRun,
  runExpiresAt,
  type RunLimits,
  type RunVerdict,
} from './expiry.js';
export { buildJob, readJobManifest, type BuiltJob, type JobInput } from './job-spec.js';
export { assessRun, type RunState } from './job-status.js';
export { junitCounts, type JunitCounts } from './junit.js';
export { JUNIT_BEGIN, JUNIT_END, junitWrapperScript } from './junit-wrapper.js';
export { cleanLeftovers, type LeftoverOptions, type LeftoverReport } from './leftovers.js';
export { ANNOTATIONS, isRunId, LABELS, newRunId } from './names.js';
export type { CreateNamespaceMode } from './namespace.js';
export { errorMessage, EXIT_CODES, UatError, UatInputError, type Outcome } from './outcome.js';
export { IN_CLUSTER_NO_PROXY, proxyEnvFrom } from './proxy-env.js';
export { DEFAULT_RBAC_NAME, runnerRoleName } from './names.js';
export { NAMESPACED_RULES } from './rbac-rules.js';
export {
  DEFAULT_RBAC_SUBJECT,
  parseServiceAccount,
  rbacObjects,
  rbacYaml,
  type RbacOptions,
  type RbacSubject,
} from './rbac.js';
export { runUat } from './run.js';
export {
  RUN_DEFAULTS,
  type StepRecord,
  type UatResult,
  type UatRunOptions,
} from './run-options.js';
