export {
  BUILT_IN_NAMES,
  DEFAULT_RECONCILERS,
  enableBuiltInReconcilers,
  type EnableOptions,
} from './built-in.js';
export {
  createProfileController,
  ProfileController,
  type ProfileControllerConfig,
  type ProfileControllerOptions,
} from './controller/controller.js';
export {
  ADOPT_ANNOTATION,
  ALWAYS_PROTECTED_NAMESPACES,
  DEFAULT_PROTECTED_NAMESPACES,
  NAMESPACE_PATTERN,
} from './controller/namespace-claim.js';
export { CONDITION_TYPE, type ProfileState } from './controller/status.js';
export { enableReconciler, enabler, type Enabler } from './enable.js';
export { limitOverridesFromLabels, LIMIT_ALIASES, type LimitOverride } from './limit-labels.js';
export {
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  PROFILE_API_VERSION,
  RECONCILER_LABEL,
  type Profile,
  type ProfileCondition,
  type ProfileOwner,
} from './profile.js';
export {
  isQuantity,
  quotaOverridesFromLabels,
  RESOURCE_ALIASES,
  type LabelProblem,
  type QuotaLabelOptions,
  type QuotaOverrides,
} from './quota-labels.js';
export {
  defineReconciler,
  EMPTY_VIEW,
  type Desired,
  type DesiredContext,
  type EnabledReconciler,
  type KindRef,
  type PrepareEnv,
  type Problem,
  type ProfileReconciler,
  type ReadRef,
  type ReadView,
} from './reconciler.js';
export { limitRangeReconciler, type LimitRangeConfig } from './reconcilers/limit-range.js';
export { namespaceReconciler, type NamespaceConfig } from './reconcilers/namespace.js';
export {
  networkPoliciesReconciler,
  policyDefinitions,
  type NetworkPoliciesConfig,
} from './reconcilers/network-policies.js';
export { profileQuotaReconciler, type ProfileQuotaConfig } from './reconcilers/profile-quota.js';
export { proxyConfigReconciler, type ProxyConfig } from './reconcilers/proxy-config.js';
export { DEFAULT_QUOTA_HARD, quotasReconciler, type QuotasConfig } from './reconcilers/quotas.js';
export { rbacReconciler, type RbacConfig } from './reconcilers/rbac.js';
export { secretsReconciler, SOURCE_ANNOTATION, type SecretsConfig } from './reconcilers/secrets.js';
export { templatesReconciler, type TemplatesConfig } from './reconcilers/templates.js';
export { contributorsFrom, type Contributor } from './templates/contributors.js';
export { SHIPPED_TEMPLATES } from './templates/shipped.js';
export { TemplateError } from './templates/template-text.js';
