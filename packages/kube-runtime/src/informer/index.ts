// `@kfx/kube-runtime/informer`: caches of the cluster kept by list and watch — the informer and
// its handlers, the store and its indexes, skeletons that keep only the fields read, and one
// readiness answer for any set of informers.
export { createInformer, Informer, type InformerOptions, type InformerStatus } from './informer.js';
export type { InformerEvent, InformerHandlers } from './informer-handlers.js';
export { informersReady } from './readiness.js';
export { metadataSkeleton, type SkeletonFields } from './skeleton.js';
export {
  builtInIndexers,
  Store,
  type BuiltInIndex,
  type IndexFunc,
  type ReadonlyStore,
} from './store.js';
