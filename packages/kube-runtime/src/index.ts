export { applyObject, whyWrite, type ApplyOptions, type ApplyResult } from './apply.js';
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
export { describeObject, type DescribedMetadata } from './describe-object.js';
export { enqueueFrom, ownerKeys } from './enqueue.js';
export { EventRecorder, type EventInput, type EventRecorderOptions } from './events.js';
export { getOrUndefined } from './get-or-undefined.js';
export { createInformer, Informer, type InformerOptions, type InformerStatus } from './informer.js';
export type { InformerEvent, InformerHandlers } from './informer-handlers.js';
export { defaultNamespace, loadKubeConfig, type LoadKubeConfigOptions } from './kubeconfig.js';
export {
  LeaderElector,
  type LeaderCallbacks,
  type LeaderElectorOptions,
} from './leader-election.js';
export { microTime, type Lease, type LeaseSpec } from './lease.js';
export { defaultLogger, type Logger } from './logger.js';
export { messageOf } from './message-of.js';
export { objectKey, parseObjectKey, type ObjectRef } from './object-key.js';
export { startOpsServer, type Check, type OpsServer, type OpsServerOptions } from './ops-server.js';
export { parseQuantity, quantitiesEqual, type Quantity } from './quantity.js';
export { informersReady } from './readiness.js';
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
export { subsetDifference } from './semantic-equal.js';
export { metadataSkeleton, type SkeletonFields } from './skeleton.js';
export { builtInIndexers, Store, type IndexFunc, type ReadonlyStore } from './store.js';
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
export {
  WorkQueue,
  type ReconcileContext,
  type Reconciler,
  type ReconcileResult,
  type WorkQueueOptions,
} from './work-queue.js';
