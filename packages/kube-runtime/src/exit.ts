// `@kfx/kube-runtime/exit`: only the mapping from failures to exit codes and the message of
// anything thrown, for an entry point's first, synchronous part (a CLI's `--help` path) that must
// not load the servers, TLS or logging `./serving` also holds.
export { EXIT, exitCodeOf, runEntry, UsageError } from './exit-codes.js';
export { ConfigError } from './config-issues.js';
export { messageOf } from './message-of.js';
