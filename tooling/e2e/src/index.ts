export { createThroughWebhook } from './admission.js';
export {
  appEntry,
  runApp,
  startApp,
  type AppPackage,
  type Completed,
  type RunningApp,
  type StartOptions,
} from './apps.js';
export { CERT_MANAGER_CRDS } from './cert-manager.js';
export { createSettledNamespace, exists, getJson, listJson } from './cluster.js';
export {
  startControllerFromChart,
  startControllerFromRelease,
  type ControllerUnderTest,
} from './controller-server.js';
export { checkBlocks, GUIDES_DIR, readGuide, type CheckBlock, type Guide } from './guide.js';
export { runGuideCommand, runGuideCommands, type GuideCommandOptions } from './guide-commands.js';
export {
  CHARTS,
  findRendered,
  helm,
  helmOk,
  KUBE_VERSION,
  renderChart,
  withValuesFile,
  type Rendered,
} from './helm.js';
export { difference, inventory, RECORD_RESOURCES, settledInventory } from './inventory.js';
export { installedObjects, releaseRevision, waitForNothingLeft } from './release.js';
export { commandLines, splitWords } from './shell-words.js';
export { startWebhookFromChart, type WebhookUnderTest } from './webhook-server.js';
