export { checkPath, DEFAULT_ALLOWED_PREFIXES, type PathDecision } from './path-allow-list.js';
export {
  describeOptionIssues,
  OptionsError,
  renameOptions,
  type OptionIssue,
  type OptionNamer,
} from './options-error.js';
export { serve, type RunningExposer, type ServeOptions } from './commands/serve.js';
export { SERVE_DEFAULTS } from './commands/serve-options.js';
export { capDefault, type CapName } from './commands/serve-caps.js';
export {
  renderManifests,
  type RenderedManifests,
  type RenderManifestsOptions,
} from './commands/manifests.js';
export {
  mintKubeconfig,
  type MintedKubeconfig,
  type MintKubeconfigOptions,
} from './commands/kubeconfig.js';
export { renderEnv, type RenderedEnv, type RenderEnvOptions } from './commands/env.js';
export { check, type CheckOptions, type CheckReport } from './commands/check.js';
export type { CheckStep } from './check/step.js';
export type { Identity } from './check/api-steps.js';
export type { RulesReviewStatus } from './check/rules-table.js';
export type { EnvFormat } from './env/service-env.js';
export { mintToken, type MintedToken, type MintTokenOptions } from './token/token-request.js';
