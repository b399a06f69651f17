// The options of `serve` and their validation; durations are in seconds.
import { z } from 'zod';
import { DEFAULT_ALLOWED_PREFIXES } from '../path-allow-list.js';
import { checkCaps } from './serve-caps.js';
import {
  count,
  listenHost,
  listenPort,
  namespacedName,
  notBoth,
  pathPrefix,
  seconds,
} from './values.js';

/** The defaults of `serve`: written here only (the CLI's flags and their help take them from here). */
export const SERVE_DEFAULTS = {
  host: '0.0.0.0',
  port: 8443,
  upgrades: true,
  maxHeaderBytes: 32768,
  handshakeTimeout: 5,
  headersTimeout: 10,
  idleTimeout: 600,
  requestBodyTimeout: 60,
  maxRequestsInflight: 400,
  maxMutatingRequestsInflight: 200,
  maxConnections: 500,
  metrics: { host: '0.0.0.0', port: 9090 },
  tlsReloadInterval: 10,
  shutdownGrace: 10,
  logLevel: 'info',
  remoteNodes: [],
  podTokens: 'remote',
  exchangeLifetime: 600,
} as const;

const D = SERVE_DEFAULTS;

export const serveSchema = z
  .strictObject({
    host: listenHost.default(D.host),
    port: listenPort.default(D.port),
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
    upgrades: z.boolean().default(D.upgrades),
    maxHeaderBytes: z
      .number()
      .int()
      .min(1024, { message: 'expected at least 1024 bytes' })
      .max(1_048_576, { message: 'expected at most 1048576 bytes' })
      .default(D.maxHeaderBytes),
    handshakeTimeout: seconds(1, 3600).default(D.handshakeTimeout),
    headersTimeout: seconds(1, 3600).default(D.headersTimeout),
    idleTimeout: seconds(1, 86_400).default(D.idleTimeout),
    requestBodyTimeout: seconds(1, 3600).default(D.requestBodyTimeout),
    maxRequestsInflight: count(1, 1_000_000).default(D.maxRequestsInflight),
    maxMutatingRequestsInflight: count(1, 1_000_000).default(D.maxMutatingRequestsInflight),
    maxConnections: count(1, 1_000_000).default(D.maxConnections),
    // Default: a share of maxConnections (serve-caps.ts).
    maxLongRunning: count(1, 1_000_000).optional(),
    maxLongRunningPerIdentity: count(1, 1_000_000).optional(),
    maxConnectionsPerSource: count(1, 1_000_000).optional(),
    maxConnectionsPerIdentity: count(1, 1_000_000).optional(),
    maxUnauthenticatedConnections: count(1, 1_000_000).optional(),
    maxUnauthenticatedConnectionsPerSource: count(1, 1_000_000).optional(),
    /** The nodes of remote workloads (interLink's virtual nodes): their Pods' tokens come in. */
    remoteNodes: z
      .array(z.string().min(1, { message: 'expected a node name' }))
      .default([...D.remoteNodes]),
    /** `remote`: a Pod-bound token passes only for a Pod on `remoteNodes`; `any`: as it is. */
    podTokens: z.enum(['remote', 'any']).default(D.podTokens),
    /** Lifetime asked for the token forwarded in place of a remote Pod's. */
    exchangeLifetime: seconds(600, 86_400).default(D.exchangeLifetime),
    /** The audiences the apiserver accepts (`--api-audiences`); default its issuer. */
    apiAudiences: z.array(z.string().min(1)).min(1).optional(),
    /** Credentials for the exposer's own calls (the door); default the Pod's service account. */
    identityKubeconfig: z.string().optional(),
    /** `NAMESPACE/NAME` of interLink's ConfigMap or Secret holding its copy of the CA, watched. */
    interlinkConfig: namespacedName.optional(),
    /** Plain-HTTP /healthz, /readyz and /metrics; `false` switches them off. */
    metrics: z
      .union([
        z.strictObject({
          host: listenHost.default(D.metrics.host),
          port: listenPort.default(D.metrics.port),
        }),
        z.literal(false),
      ])
      .default({ ...D.metrics }),
    tlsReloadInterval: seconds(1, 3600).default(D.tlsReloadInterval),
    shutdownGrace: seconds(0, 3600).default(D.shutdownGrace),
    logLevel: z.enum(['debug', 'info', 'warn', 'error']).default(D.logLevel),
  })
  .superRefine(checkCaps)
  .refine(...notBoth('upstream', 'kubeconfig'))
  .refine((o) => o.context === undefined || o.kubeconfig !== undefined, {
    message: 'a context of which kubeconfig? give `kubeconfig` too',
    path: ['context'],
  });
