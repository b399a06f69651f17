// @kfx/testenv/bench: the admission benchmark kit (load generators, process launcher, Go peer,
// side-by-side comparisons, the notebook Pod), reached by name from every package that benchmarks.
export {
  compareWithH2load,
  type BenchTls,
  type H2loadComparisonOptions,
  type H2loadContender,
} from './h2load-comparison.js';
export { ensureH2load, h2load, type H2loadResult, type H2loadRun } from './h2load.js';
export {
  closedLoop,
  openLoop,
  percentile,
  type Protocol,
  type Result,
  type Target,
} from './load.js';
export { notebookPod } from './notebook-pod.js';
export { ensurePeer } from './peer.js';
export { benchLogger, benchServerOptions, serveForBench, type BenchServer } from './serve.js';
export {
  startEchoServer,
  startFloorServer,
  startProcess,
  startServer,
  type ProcessOptions,
  type Running,
} from './servers.js';
export {
  roundRatio,
  SIDE_BY_SIDE_HEADER,
  sideBySide,
  sideBySideTiming,
  type Contender,
  type Measured,
  type SideBySideOptions,
  type SideBySideTiming,
} from './side-by-side.js';
export { noopMutation, proxyMutation } from './webhooks.js';
