// `@kfx/kube-runtime/serving`: what a server process needs around its own work — the health and
// metrics endpoint, the TLS files kept current, one mapping from failures to exit codes, the
// message of anything thrown and the naming of an object in messages — without the Kubernetes
// client, so that an admission webhook, a proxy or a CLI's start-up that imports only this does
// not load it.
export {
  startOpsServer,
  type Check,
  type OpsServer,
  type OpsServerOptions,
} from './serving/ops-server.js';
export {
  checkCaBundle,
  checkTlsPair,
  loadTlsFiles,
  type TlsFiles,
  type TlsMaterial,
  type TlsPair,
} from './serving/tls-pair.js';
export { watchTlsFiles, type TlsWatcher, type TlsWatchOptions } from './serving/tls-watcher.js';
export { EXIT, exitCodeOf, runEntry, UsageError } from './exit-codes.js';
export { describeObject, type DescribedMetadata } from './describe-object.js';
export { messageOf } from './message-of.js';
