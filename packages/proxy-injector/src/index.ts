// The public API of @kfx/proxy-injector: the webhook factory and its options, the config schema
// (and its defaults), the offline preview (and the one-shot network discovery it can use), the
// webhook registration, the injection audit, the annotation/label names users write in
// manifests, and whether a NO_PROXY range covers an address (for `kfx doctor`). The other
// building blocks (address maths, NO_PROXY merging, notes, line diffs) stay internal.
export { proxyInjectorApiRules } from './api-rules.js';
export { cidrCovers, coveringCidrs } from './cidr-set.js';
export {
  DEFAULT_KUBEFLOW_NAMESPACES,
  DEFAULT_METADATA_ENDPOINTS,
  DEFAULT_POD_CIDRS,
  DEFAULT_SERVICE_CIDRS,
  parseProxyInjectorConfig,
  proxyInjectorConfigSchema,
  type ProxyInjectorConfig,
  type ProxyInjectorConfigInput,
} from './config.js';
export { renderDiff, type DiffOptions } from './diff.js';
export { discoverNetwork } from './discovery/cluster-discovery.js';
export { noProxyGuesses, type NoProxyGuess } from './discovery/cluster-no-proxy.js';
export type { DiscoveredNetwork, DiscoveredNode } from './discovery/network.js';
export { INJECT_ANNOTATION, INJECT_LABEL } from './opt-out.js';
export { previewProxyInjection, type Preview, type ProxyPreviewOptions } from './preview.js';
export { proxyInjectorRegistration } from './registration.js';
export type { Environment, ProxySettings } from './settings.js';
export {
  createInjectionAudit,
  InjectionAudit,
  type InjectionAuditOptions,
} from './audit/injection-audit.js';
export {
  injectionState,
  type InjectionState,
  type InjectionStateOptions,
} from './audit/injection-state.js';
export { INJECTED_ANNOTATION } from './stamp.js';
export {
  createProxyInjector,
  PROXY_INJECTOR_NAME,
  PROXY_INJECTOR_PATH,
  type ProxyInjectorOptions,
  type ProxyInjectorWebhook,
} from './webhook.js';
