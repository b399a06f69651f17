// `@kfx/kube-runtime`: every public name of the package, for the code that imports them from
// here today. New code imports from the entry point that holds what it needs, so that a process
// loads only that part (a webhook or a CLI's start-up need not load the Kubernetes client):
//
// - `@kfx/kube-runtime/client`: kubeconfig, KubeClient and its verbs, API errors, retries and
//   backoff, the server's version and APIs, resource paths, label selectors, inParallel.
// - `@kfx/kube-runtime/informer`: createInformer, Informer, Store and its indexes, skeletons,
//   informersReady.
// - `@kfx/kube-runtime/controller`: WorkQueue and enqueueFrom, server-side apply, Events,
//   LeaderElector and Leases, object keys, quantities.
// - `@kfx/kube-runtime/serving`: the process Runtime, the ops server (/healthz, /readyz,
//   /metrics), allReady, TLS files, configuration files and ConfigError, the logger, exit codes.
// - `@kfx/kube-runtime/exit`: only exit codes, ConfigError and messageOf, for a CLI's first,
//   synchronous part.
export * from './client/index.js';
export * from './controller/index.js';
export * from './informer/index.js';
export * from './serving/index.js';
