// What other kfx apps take from kfx-webhook (inside this repository, never published): the checks
// of its configuration file, so that `kfx preview --config` refuses exactly what kfx-webhook
// refuses, and the handlers whose section schemas the chart's values schema is generated from.
export { checkConfig, checkSections, parseConfig, type WebhookAppConfig } from './config.js';
export { HANDLERS, type HandlerFactory } from './webhooks.js';
