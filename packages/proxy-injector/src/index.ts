export { firstHostAddress, isIpAddress, parseCidr, type Cidr } from './addresses.js';
export {
  DEFAULT_EXCLUDED_CONTAINERS,
  DEFAULT_POD_CIDRS,
  DEFAULT_SERVICE_CIDRS,
  parseProxyInjectorConfig,
  proxyInjectorConfigSchema,
  type ProxyInjectorConfig,
  type ProxyInjectorConfigInput,
} from './config.js';
export { diffLines, renderDiff, type DiffOptions } from './diff.js';
export {
  injectPodSpec,
  type ContainerKind,
  type ContainerReport,
  type InjectionScope,
  type PodSpec,
} from './inject.js';
export { javaProxyOptions, type JavaOptions } from './java-options.js';
export {
  applyOverride,
  parseNamespaceOverride,
  type NamespaceOverride,
} from './namespace-override.js';
export { clusterNoProxyDefaults, mergeNoProxy, type ClusterNetwork } from './no-proxy.js';
export { describeInjection } from './notes.js';
export {
  INJECT_ANNOTATION,
  INJECT_LABEL,
  isMirrorPod,
  MIRROR_POD_ANNOTATION,
  optedOut,
} from './opt-out.js';
export { previewProxyInjection, type Preview, type ProxyPreviewOptions } from './preview.js';
export {
  proxyInjectorNamespaceSelector,
  proxyInjectorRegistration,
  proxyInjectorRules,
} from './registration.js';
export {
  planInjection,
  redactProxy,
  resolveProxySettings,
  type Environment,
  type InjectionPlan,
  type ProxySettings,
  type Variable,
  type VariableFamily,
} from './settings.js';
export {
  createInjectionAudit,
  InjectionAudit,
  type InjectionAuditOptions,
} from './audit/injection-audit.js';
export { injectionState, type InjectionState } from './audit/injection-state.js';
export { INJECTED_ANNOTATION, markInjected } from './stamp.js';
export {
  createProxyInjector,
  injectionScope,
  PROXY_INJECTOR_NAME,
  PROXY_INJECTOR_PATH,
  type ProxyInjectorOptions,
  type ProxyInjectorWebhook,
} from './webhook.js';
