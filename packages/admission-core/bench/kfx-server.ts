// Benchmark process: the admission server with the proxy handler, logging at info to /dev/null
// (the cost of a log line per request is real in production). Prints its port as JSON.
import { proxyWebhook } from './proxy-webhook.ts';
import { serveForBench } from './serve.ts';

await serveForBench([proxyWebhook]);
