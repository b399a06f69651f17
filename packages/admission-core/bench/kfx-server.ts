// Benchmark process: the admission server with the proxy handler, logging at info to /dev/null
// (the cost of a log line per request is real in production). Prints its port as JSON.
import { createAdmissionServer } from '@kfx/admission-core';
import { benchServerOptions, serveForBench } from '@kfx/testenv/bench';
import { proxyWebhook } from './proxy-webhook.ts';

await serveForBench(createAdmissionServer({ ...benchServerOptions(), webhooks: [proxyWebhook] }));
