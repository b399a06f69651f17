export { checkPath, DEFAULT_ALLOWED_PREFIXES, type PathDecision } from './path-allow-list.js';
export { EXPOSE_API_COMMANDS } from './commands/commands.js';
export { runExposeApi, type CommandOutcome } from './commands/run.js';
export {
  flagName,
  OptionsError,
  parseOptionValue,
  type CommandSpec,
  type OptionKind,
  type OptionSpec,
} from './commands/option-spec.js';
export { serve, serveCommand, type RunningExposer, type ServeOptions } from './commands/serve.js';
export {
  manifestsCommand,
  renderManifests,
  type RenderedManifests,
  type RenderManifestsOptions,
} from './commands/manifests.js';
export {
  kubeconfigCommand,
  mintKubeconfig,
  type MintedKubeconfig,
  type MintKubeconfigOptions,
} from './commands/kubeconfig.js';
export { envCommand, renderEnv, type RenderedEnv, type RenderEnvOptions } from './commands/env.js';
export { check, checkCommand, type CheckOptions, type CheckReport } from './commands/check.js';
export type { CheckStep } from './check/step.js';
export type { Identity } from './check/api-steps.js';
export type { RulesReviewStatus } from './check/rules-table.js';
export type { EnvFormat } from './env/service-env.js';
export { mintToken, type MintedToken, type MintTokenOptions } from './token/token-request.js';
