// The options of `serve` and their validation; durations are in seconds.
import { z } from 'zod';
import { DEFAULT_ALLOWED_PREFIXES } from '../path-allow-list.js';
import { checkCaps } from './serve-caps.js';
import { count, listenHost, listenPort, notBoth, pathPrefix, seconds } from './values.js';

export const serveSchema = z
  .strictObject({
    host: listenHost.default('0.0.0.0'),
    port: listenPort.default(8443),
    tlsCert: z.string().min(1, { message: 'expected a file' }),
    tlsKey: z.string().min(1, { message: 'expected a file' }),
    upstream: z.string().optional(),
    upstreamCa: z.string().optional(),
    kubeconfig: z.string().optional(),
    context: z.string().optional(),
    allowPath: z
      .array(pathPrefix)
      .min(1, { message: 'expected at least one prefix' })
      .default([...DEFAULT_ALLOWED_PREFIXES]),
    upgrades: z.boolean().default(true),
    maxHeaderBytes: z
      .number()
      .int()
      .min(1024, { message: 'expected at least 1024 bytes' })
      .max(1_048_576, { message: 'expected at most 1048576 bytes' })
      .default(32768),
    handshakeTimeout: seconds(1, 3600).default(5),
    headersTimeout: seconds(1, 3600).default(10),
    idleTimeout: seconds(1, 86_400).default(600),
    requestBodyTimeout: seconds(1, 3600).default(60),
    maxRequestsInflight: count(1, 1_000_000).default(400),
    maxMutatingRequestsInflight: count(1, 1_000_000).default(200),
    maxConnections: count(1, 1_000_000).default(500),
    // Default: a share of maxConnections (serve-caps.ts).
    maxLongRunning: count(1, 1_000_000).optional(),
    maxLongRunningPerIdentity: count(1, 1_000_000).optional(),
    maxConnectionsPerSource: count(1, 1_000_000).optional(),
    maxConnectionsPerIdentity: count(1, 1_000_000).optional(),
    maxUnauthenticatedConnections: count(1, 1_000_000).optional(),
    maxUnauthenticatedConnectionsPerSource: count(1, 1_000_000).optional(),
    /** Plain-HTTP /healthz, /readyz and /metrics; `false` switches them off. */
    metrics: z
      .union([
        z.strictObject({ host: listenHost.default('0.0.0.0'), port: listenPort.default(9090) }),
        z.literal(false),
      ])
      .default({ host: '0.0.0.0', port: 9090 }),
    tlsReloadInterval: seconds(1, 3600).default(10),
    shutdownGrace: seconds(0, 3600).default(10),
    logLevel: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  })
  .superRefine(checkCaps)
  .refine(...notBoth('upstream', 'kubeconfig'))
  .refine((o) => o.context === undefined || o.kubeconfig !== undefined, {
    message: 'a context of which kubeconfig? give `kubeconfig` too',
    path: ['context'],
  });
