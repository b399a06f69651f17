export {
  addressToBigInt,
  firstHostAddress,
  formatAddress,
  isIpAddress,
  parseCidr,
  type Cidr,
} from './addresses.js';
export {
  CA_ADDITIVE_VARIABLE,
  CA_BUNDLE_VOLUME,
  CA_REPLACING_VARIABLES,
  caBundleStateOf,
  countCertificates,
  planCaBundle,
  type CaBundleConfig,
  type CaBundleState,
  type CaPlan,
} from './ca-bundle.js';
export { cidrCovers, collapseCidrs, coveringCidrs } from './cidr-set.js';
export {
  DEFAULT_CA_BUNDLE_MOUNT_PATH,
  DEFAULT_EXCLUDED_CONTAINERS,
  DEFAULT_KUBEFLOW_NAMESPACES,
  DEFAULT_MAX_NODES,
  DEFAULT_POD_CIDRS,
  DEFAULT_SERVICE_CIDRS,
  parseProxyInjectorConfig,
  proxyInjectorConfigSchema,
  type ProxyInjectorConfig,
  type ProxyInjectorConfigInput,
} from './config.js';
export { diffLines, renderDiff, type DiffOptions } from './diff.js';
export { ClusterDiscovery, discoverNetwork, SERVICE_CIDRS } from './discovery/cluster-discovery.js';
export {
  clusterNoProxy,
  MAX_POD_CIDR_ENTRIES,
  type ClusterNoProxy,
} from './discovery/cluster-no-proxy.js';
export {
  serviceCidrsOf,
  serviceIpsOf,
  summarizeNode,
  type DiscoveredNetwork,
  type DiscoveredNode,
} from './discovery/network.js';
export {
  describeEnvFrom,
  envFromConfigMaps,
  envFromLookup,
  type EnvFromKeys,
  type EnvFromLookup,
  type EnvFromSource,
} from './env-from.js';
export { createEnvFromReader, ENV_FROM_TIMEOUT_MS } from './env-from-reader.js';
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
export {
  clusterNames,
  clusterNoProxyDefaults,
  mergeNoProxy,
  mergeNoProxyGroups,
  type ClusterNetwork,
  type NoProxyGroup,
} from './no-proxy.js';
export { describeInjection, describeNoProxy, envFromWarnings } from './notes.js';
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
} from './settings.js';
export type { Variable, VariableFamily } from './variables.js';
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
