// `@kfx/kube-runtime/client`: talking to the Kubernetes API — the kubeconfig (API traffic never
// goes through HTTP(S)_PROXY), the client with its verbs, errors, retries and list streams, the
// server's version and APIs, resource paths, and label selectors.
export {
  backoffDelay,
  KeyedBackoff,
  parseRetryAfter,
  sleep,
  type BackoffOptions,
} from '../backoff.js';
export { KubeClient, type KubeClientOptions, type Query, type RequestOptions } from './client.js';
export {
  describePath,
  isAlreadyExists,
  isConflict,
  isGone,
  isNotFound,
  isUnauthorized,
  isTooManyRequests,
  KubeApiError,
  type Status,
  type StatusDetails,
  type TransportReason,
} from './errors.js';
export { getOrUndefined } from './get-or-undefined.js';
export { inParallel } from '../in-parallel.js';
export { defaultNamespace, loadKubeConfig, type LoadKubeConfigOptions } from './kubeconfig.js';
export {
  isLabelKey,
  isLabelValue,
  labelSelectorQuery,
  matchesLabelSelector,
  type LabelSelector,
  type Labels,
} from '../label-selector.js';
export {
  apiVersionOf,
  parseApiVersion,
  resourcePath,
  resources,
  type KubeList,
  type KubeObject,
  type ManagedFieldsEntry,
  type ObjectMeta,
  type OwnerReference,
  type PathOptions,
  type ResourceRef,
} from './resources.js';
export type { RetryOptions } from './retry-policy.js';
export {
  MissingApiError,
  missingApiReason,
  parseServerVersion,
  readServerVersion,
  requireApi,
  servesApi,
  type RequiredApi,
  type ServerVersion,
} from './server-version.js';
export type {
  DeleteOptions,
  ListOptions,
  ObjectOptions,
  PatchType,
  Selectors,
  WatchOptions,
  WriteOptions,
} from './verbs.js';
export type { WatchEvent, WatchEventType } from './watch.js';
