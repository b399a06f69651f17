// `@kfx/kube-runtime/serving`: what a long-running process needs around its own work — the
// runtime that starts its components, serves /healthz, /readyz and /metrics, runs the leader's
// work, stops on SIGTERM and ends with the shared exit codes; the TLS files kept current; the
// configuration file and its errors; the logger; the message of anything thrown — without the
// Kubernetes client, so that an admission webhook, a proxy or a CLI's start-up that imports only
// this does not load it.
export { allReady, type Check } from './checks.js';
export { ConfigError, describeIssues, keyPath, type ConfigIssue } from '../config-issues.js';
export { parseConfigText, readConfigFile, type ConfigDocument } from '../config-file.js';
export { describeObject, type DescribedMetadata } from '../describe-object.js';
export { EXIT, exitCodeOf, runEntry, UsageError } from '../exit-codes.js';
export { defaultLogger, type Logger } from '../logger.js';
export { messageOf } from '../message-of.js';
export { parseProcessFlags } from './process-flags.js';
export { startOpsServer, type OpsServer, type OpsServerOptions } from './ops-server.js';
export {
  Runtime,
  type Component,
  type LeaderElection,
  type LeaderWork,
  type RuntimeOptions,
} from './runtime.js';
export {
  checkCaBundle,
  checkTlsPair,
  loadTlsFiles,
  type TlsFiles,
  type TlsMaterial,
  type TlsPair,
} from './tls-pair.js';
export { watchTlsFiles, type TlsWatcher, type TlsWatchOptions } from './tls-watcher.js';
