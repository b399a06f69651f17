// The public API of @kfx/pvc-rewriter: the webhook factory and its options, the config schema,
// the offline preview, the webhook registration, and the names users write in manifests, configs
// and alerts (claim annotations, the `<default>`/`<unset>` class tokens, the skipped-claims
// metric). Rule matching, label selectors and the data-source checks behind them stay internal.
export { pvcRewriterApiRules } from './api-rules.js';
export type { Readiness } from './cluster-state.js';
export {
  parsePvcRewriterConfig,
  pvcRewriterConfigSchema,
  type PvcRewriterConfig,
  type PvcRewriterConfigInput,
} from './config.js';
export type { Labels } from '@kfx/kube-runtime/client';
export { SKIPPED_CLAIMS_METRIC } from './metrics.js';
export { previewPvcRewrite, type PvcPreview, type PvcPreviewOptions } from './preview.js';
export { pvcRewriterRegistration } from './registration.js';
export { ORIGINAL_CLASS_ANNOTATION, REWRITE_ANNOTATION, type Claim } from './rewrite.js';
export { DEFAULT_STORAGE_CLASS, UNSET_STORAGE_CLASS } from './rules.js';
export {
  createPvcRewriter,
  PVC_REWRITER_NAME,
  PVC_REWRITER_PATH,
  type PvcRewriterOptions,
  type PvcRewriterWebhook,
} from './webhook.js';
