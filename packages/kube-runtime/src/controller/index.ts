// `@kfx/kube-runtime/controller`: what a controller writes with — the keyed work queue and what
// feeds it, server-side apply and when to skip it, Events, leader election on a Lease, object
// keys and quantities compared as the API server does.
export { applyObject, whyWrite, type ApplyOptions, type ApplyResult } from './apply.js';
export {
  appliedSkeleton,
  type AppliedSkeleton,
  type AppliedSkeletonFields,
} from './applied-digest.js';
export { enqueueFrom, ownerKeys } from './enqueue.js';
export { EventRecorder, type EventInput, type EventRecorderOptions } from './events.js';
export {
  LeaderElector,
  type LeaderCallbacks,
  type LeaderElectorOptions,
} from './leader-election.js';
export { microTime, type Lease, type LeaseSpec } from './lease.js';
export { objectKey, parseObjectKey, type ObjectRef } from '../object-key.js';
export { parseQuantity, quantitiesEqual, type Quantity } from '../quantity.js';
export { subsetDifference } from './semantic-equal.js';
export {
  WorkQueue,
  type ReconcileContext,
  type Reconciler,
  type ReconcileResult,
  type WorkQueueOptions,
} from './work-queue.js';
