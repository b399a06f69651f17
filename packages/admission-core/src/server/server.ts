// The admission server's life cycle: TLS 1.2+ on HTTP/2 with HTTP/1.1 fallback, certificate
// reload from disk, a separate metrics port, readiness, and a graceful close that lets every
// admission in flight finish.
import type { Http2SecureServer } from 'node:http2';
import type { SecureContextOptions } from 'node:tls';
import { messageOf, startOpsServer, type OpsServer } from '@kfx/kube-runtime/serving';
import { pino } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { answerDeadlines } from './answer-deadline.js';
import { trackConnections, type ConnectionDrain } from './connection-drain.js';
import { createRequestHandler } from './handle-request.js';
import { createHttpsServer, listenError, listenOn } from './https-server.js';
import { createInFlight } from './in-flight.js';
import { createAdmissionMetrics, type AdmissionMetrics } from './metrics.js';
import { resolveOptions, type AdmissionServerOptions } from './server-options.js';
import {
  loadServingTls,
  replacedServingTls,
  type TlsPair,
  type TlsWatcher,
} from './serving-tls.js';
import { webhookLifecycle, type Readiness } from './webhook-lifecycle.js';

export interface AdmissionServer {
  /**
   * Loads the certificate, listens, and resolves with the ports actually bound. With
   * `metricsPort: false`, `ops.metricsPort` names the port where the process serves this
   * server's metrics and readiness instead (a kube-runtime `Runtime`'s ops server), for the log.
   */
  start(ops?: { metricsPort?: number | undefined }): Promise<{
    port: number;
    metricsPort: number | undefined;
  }>;
  /** Graceful: readiness fails, no new connections, in-flight admissions finish, then closes. */
  close(): Promise<void>;
  /** Re-reads the TLS files now (they are watched anyway). No-op with PEM strings. */
  reloadTls(): Promise<void>;
  /**
   * Serves this certificate and key (PEM) from now on, for a server created with PEM strings
   * whose owner obtains new ones itself (e.g. from the API): new handshakes get them, open
   * connections keep theirs. Throws, keeping the current pair, when the key does not fit the
   * certificate, or when the server reads its certificate from files (those are watched).
   */
  setTls(pair: { cert: string; key: string }): void;
  /** What GET /readyz answers: not while starting or shutting down, or while a webhook is not. */
  readiness(): Readiness;
  readonly registry: Registry;
  readonly metrics: AdmissionMetrics;
}

function processRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

export function createAdmissionServer(options: AdmissionServerOptions): AdmissionServer {
  const config = resolveOptions(options);
  const log = config.logger ?? pino({ name: 'kfx-admission' });
  const registry = config.registry ?? processRegistry();
  const inFlight = createInFlight({
    maxRequests: config.maxInFlight,
    maxAddressRequests: config.maxAddressInFlight,
    maxBytes: config.maxInFlightBytes,
    maxConnectionBytes: config.maxConnectionBytes,
    maxAddressBytes: config.maxAddressBytes,
  });
  const metrics = createAdmissionMetrics(registry, inFlight);
  const deadlines = answerDeadlines(config.answerTimeoutMs);
  let state: 'new' | 'starting' | 'ready' | 'shutting down' | 'closed' = 'new';
  let server: Http2SecureServer | undefined;
  let drain: ConnectionDrain | undefined;
  let watcher: TlsWatcher | undefined;
  let metricsServer: OpsServer | undefined;
  /** With PEM strings: the pair to serve, replaced by setTls(). */
  let pems: TlsPair | undefined = 'cert' in config.tls ? (config.tls as TlsPair) : undefined;
  /** The context of the last setTls(), for a server created after it (setTls during start()). */
  let replaced: SecureContextOptions | undefined;

  const handler = createRequestHandler({
    webhooks: config.webhooks,
    metrics,
    log,
    limits: { maxBytes: config.maxBodyBytes, timeoutMs: config.bodyTimeoutMs },
    jsonLimits: { maxDepth: config.maxJsonDepth, maxValues: config.maxJsonValues },
    inFlight,
    deadlines,
    handlerTimeoutMs: config.handlerTimeoutMs,
    checkPatches: config.checkPatches,
    maxPatchBytes: config.maxPatchBytes,
    readiness,
    draining: () => drain?.draining ?? false,
  });

  const lifecycle = webhookLifecycle(config.webhooks, log);

  function readiness(): Readiness {
    if (state !== 'ready') return { ok: false, reasons: [state === 'new' ? 'starting' : state] };
    const webhooks = lifecycle.readiness();
    if (!config.ready) return webhooks;
    let own: Readiness;
    try {
      own = config.ready();
    } catch (error) {
      own = { ok: false, reasons: [`readiness check failed: ${messageOf(error)}`] };
    }
    return { ok: webhooks.ok && own.ok, reasons: [...webhooks.reasons, ...own.reasons] };
  }

  async function start(ops?: { metricsPort?: number | undefined }) {
    if (state !== 'new') throw new Error(`createAdmissionServer: start() called when ${state}`);
    state = 'starting';
    try {
      return await listen(ops?.metricsPort);
    } catch (error) {
      watcher?.close();
      server?.close();
      await metricsServer?.close();
      await lifecycle.stop();
      state = 'closed';
      throw error;
    }
  }

  async function listen(servedElsewhere: number | undefined) {
    const tlsOptions = { metrics, log, pollIntervalMs: config.tlsPollIntervalMs };
    const tls = await loadServingTls(pems ?? config.tls, tlsOptions);
    await lifecycle.start();
    const secure = createHttpsServer(tls.context, handler, {
      bodyTimeoutMs: config.bodyTimeoutMs,
      log,
      maxConnections: config.maxConnections,
      maxConcurrentStreams: config.maxConcurrentStreams,
    });
    server = secure;
    // A pair given while the webhooks started (their caches can take seconds) is the one to
    // serve: the context above was made before it.
    if (replaced) secure.setSecureContext(replaced);
    drain = trackConnections(secure);
    const port = await listenOn(secure, config.port, config.host).catch((error: unknown) => {
      throw listenError('port', config.port, config.host, error);
    });
    secure.on('error', (error) => {
      log.error({ err: error }, 'HTTPS server error');
    });
    watcher = tls.watch((context) => {
      secure.setSecureContext(context);
    });
    let metricsPort = servedElsewhere;
    if (config.metricsPort !== false) {
      const { metricsPort: wanted, metricsHost } = config;
      metricsServer = await startOpsServer({
        port: wanted,
        host: metricsHost,
        registry,
        readiness,
        logger: log,
      }).catch((error: unknown) => {
        throw listenError('metricsPort', wanted, metricsHost, error);
      });
      metricsPort = metricsServer.port;
    }
    state = 'ready';
    const paths = config.webhooks.map((w) => w.path);
    log.info({ port, metricsPort, webhooks: paths }, 'admission server listening');
    return { port, metricsPort };
  }

  async function close() {
    if (state === 'closed' || state === 'shutting down') return;
    state = 'shutting down';
    watcher?.close();
    const { forced } = (await drain?.close(config.shutdownTimeoutMs)) ?? { forced: 0 };
    if (forced > 0) log.warn({ forced }, 'cut connections still open after shutdownTimeoutMs');
    deadlines.close();
    await metricsServer?.close();
    await lifecycle.stop();
    state = 'closed';
    log.info('admission server closed');
  }

  return {
    start,
    close,
    reloadTls: async () => {
      await watcher?.check();
    },
    setTls(pair) {
      if (pems === undefined) {
        throw new TypeError(
          'AdmissionServer.setTls: this server reads its certificate from files (tls.certFile), which it watches; create it with { cert, key } to give it new ones',
        );
      }
      const context = replacedServingTls(pair, pems.clientCa, {
        metrics,
        log,
        pollIntervalMs: config.tlsPollIntervalMs,
        source: 'AdmissionServer.setTls',
      });
      pems = { ...pems, cert: pair.cert, key: pair.key };
      replaced = context;
      server?.setSecureContext(context);
    },
    readiness,
    registry,
    metrics,
  };
}
