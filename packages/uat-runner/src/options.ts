// `@kfx/uat-runner/options`: what a command line needs to define and check its flags — the
// defaults, duration parsing and formatting, run ids — without loading the Kubernetes client
// the runner itself uses (so that a CLI's --help stays quick).
export { formatDuration, parseDuration } from './base/duration.js';
export { DEFAULT_RBAC_NAME, isRunId } from './base/names.js';
export { RUN_DEFAULTS } from './run-options.js';
export { PIPELINE_DEFAULTS, PIPELINE_FORMATS } from './pipeline/pipeline-step.js';
