// The public API of @kfx/profile-reconcilers: the controller, enabling the built-in reconcilers
// from a config mapping, defining your own reconciler (and the types it is written against), the
// namespace rules, the Profile selector, the ceilings of what a Profile may raise, the Pod
// Security admission policy, and the names the controller writes on objects. The
// built-in reconcilers' parts (label parsing, policy tables, the template engine) stay internal.
export {
  BUILT_IN_CONFIG_SCHEMAS,
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
export {
  ceilingsSchema,
  NO_CEILINGS,
  PROFILE_PLACEHOLDER,
  type Ceilings,
  type PodSecurityLevel,
} from './ceilings.js';
export { CONDITION_TYPE, conditionReason } from './controller/status.js';
export { enableReconciler } from './enable.js';
export { KUBEFLOW_EDITOR_SERVICE_ACCOUNT, KUBEFLOW_SERVICE_ACCOUNTS } from './kubeflow-names.js';
export {
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  RECONCILER_LABEL,
  type Profile,
  type ProfileCondition,
  type ProfileOwner,
} from './profile.js';
export { parseProfileSelector, type ProfileSelector } from './profile-selector.js';
export {
  BASELINE_POLICY_LABEL,
  BASELINE_POLICY_NAME,
  baselinePolicyObjects,
} from './pod-security/baseline-policy.js';
export { ISTIO_PROXY_IMAGES_ANNOTATION } from './pod-security/istio-init.js';
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
  type RequiredObject,
  type ReadRef,
  type ReadView,
} from './reconciler.js';
export { SOURCE_ANNOTATION } from './reconcilers/secrets.js';
export { TemplateError } from './templates/template-error.js';
