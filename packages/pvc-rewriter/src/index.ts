export { ClusterState, type Readiness } from './cluster-state.js';
export {
  ACCESS_MODES,
  parsePvcRewriterConfig,
  pvcRewriterConfigSchema,
  type PvcRewriterConfig,
  type PvcRewriterConfigInput,
} from './config.js';
export {
  formatSelector,
  matchesSelector,
  type LabelSelector,
  type Labels,
} from './label-selector.js';
export { SKIPPED_CLAIMS_METRIC } from './metrics.js';
export {
  DATA_SOURCE_POLICIES,
  dataSourceOf,
  DEFAULT_DATA_SOURCE_POLICY,
  DEFAULT_VOLUME_MODES,
  holds,
  VOLUME_MODES,
  volumeModeOf,
  type DataSourcePolicy,
  type Hold,
  type HoldReason,
  type MovableRule,
  type MovableSpec,
  type VolumeMode,
} from './movable.js';
export { previewPvcRewrite, type PvcPreview, type PvcPreviewOptions } from './preview.js';
export { pvcRewriterRegistration, pvcRewriterRules } from './registration.js';
export {
  BETA_CLASS_ANNOTATION,
  claimRef,
  ORIGINAL_CLASS_ANNOTATION,
  REWRITE_ANNOTATION,
  rewriteClaim,
  ruleName,
  type Claim,
  type RewriteContext,
  type RewriteOutcome,
} from './rewrite.js';
export {
  DEFAULT_STORAGE_CLASS,
  findRule,
  matchRule,
  UNSET_STORAGE_CLASS,
  type ClaimSpec,
  type ClusterFacts,
  type MatchResult,
  type NamespaceLabels,
  type RewriteRule,
  type RuleMatch,
} from './rules.js';
export {
  createPvcRewriter,
  PVC_REWRITER_NAME,
  PVC_REWRITER_PATH,
  type PvcRewriterOptions,
  type PvcRewriterWebhook,
} from './webhook.js';
