export { applyObject, whyWrite, type ApplyOptions, type ApplyResult } from './controller/apply.js';
export {
  appliedSkeleton,
  type AppliedSkeleton,
  type AppliedSkeletonFields,
} from './controller/applied-digest.js';
export {
  backoffDelay,
  KeyedBackoff,
  parseRetryAfter,
  sleep,
  type BackoffOptions,
} from './backoff.js';
export { ConfigError, describeIssues, keyPath, type ConfigIssue } from './config-issues.js';
export { parseConfigText, readConfigFile, type ConfigDocument } from './config-file.js';
export {
  isLabelKey,
  isLabelValue,
  labelSelectorQuery,
  matchesLabelSelector,
  type LabelSelector,
  type Labels,
} from './label-selector.js';
export {
  KubeClient,
  type KubeClientOptions,
  type Query,
  type RequestOptions,
} from './client/client.js';
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
} from './client/errors.js';
export { describeObject, type DescribedMetadata } from './describe-object.js';
export { enqueueFrom, ownerKeys } from './controller/enqueue.js';
export { EventRecorder, type EventInput, type EventRecorderOptions } from './controller/events.js';
export { getOrUndefined } from './client/get-or-undefined.js';
export {
  MissingApiError,
  missingApiReason,
  parseServerVersion,
  readServerVersion,
  requireApi,
  servesApi,
  type RequiredApi,
  type ServerVersion,
} from './client/server-version.js';
export {
  createInformer,
  Informer,
  type InformerOptions,
  type InformerStatus,
} from './informer/informer.js';
export type { InformerEvent, InformerHandlers } from './informer/informer-handlers.js';
export {
  defaultNamespace,
  loadKubeConfig,
  type LoadKubeConfigOptions,
} from './client/kubeconfig.js';
export {
  LeaderElector,
  type LeaderCallbacks,
  type LeaderElectorOptions,
} from './controller/leader-election.js';
export { microTime, type Lease, type LeaseSpec } from './controller/lease.js';
export { defaultLogger, type Logger } from './logger.js';
export { messageOf } from './message-of.js';
export { objectKey, parseObjectKey, type ObjectRef } from './object-key.js';
export {
  startOpsServer,
  type Check,
  type OpsServer,
  type OpsServerOptions,
} from './serving/ops-server.js';
export { inParallel } from './in-parallel.js';
export { parseQuantity, quantitiesEqual, type Quantity } from './quantity.js';
export { informersReady } from './informer/readiness.js';
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
} from './client/resources.js';
export type { RetryOptions } from './client/retry-policy.js';
export { subsetDifference } from './controller/semantic-equal.js';
export { metadataSkeleton, type SkeletonFields } from './informer/skeleton.js';
export {
  builtInIndexers,
  Store,
  type BuiltInIndex,
  type IndexFunc,
  type ReadonlyStore,
} from './informer/store.js';
export type {
  DeleteOptions,
  ListOptions,
  ObjectOptions,
  PatchType,
  Selectors,
  WatchOptions,
  WriteOptions,
} from './client/verbs.js';
export type { WatchEvent, WatchEventType } from './client/watch.js';
export {
  WorkQueue,
  type ReconcileContext,
  type Reconciler,
  type ReconcileResult,
  type WorkQueueOptions,
} from './controller/work-queue.js';
