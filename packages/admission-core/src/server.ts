// The admission server's life cycle: TLS 1.2+ on HTTP/2 with HTTP/1.1 fallback, certificate
// reload from disk, a separate metrics port, readiness, and a graceful close that lets every
// admission in flight finish.
import { X509Certificate } from 'node:crypto';
import { createSecureServer, type Http2SecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { SecureContextOptions } from 'node:tls';
import { pino } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { trackConnections, type ConnectionDrain } from './connection-drain.js';
import { createRequestHandler } from './handle-request.js';
import { createAdmissionMetrics, type AdmissionMetrics } from './metrics.js';
import { createMetricsServer, type MetricsServer } from './metrics-server.js';
import { resolveOptions, type AdmissionServerOptions } from './server-options.js';
import type { Webhook } from './webhook.js';
import {
  checkTlsPair,
  readTlsFiles,
  watchTlsFiles,
  type TlsPair,
  type TlsWatcher,
} from './tls-files.js';

export interface AdmissionServer {
  /** Loads the certificate, listens, and resolves with the ports actually bound. */
  start(): Promise<{ port: number; metricsPort: number | undefined }>;
  /** Graceful: readiness fails, no new connections, in-flight admissions finish, then closes. */
  close(): Promise<void>;
  /** Re-reads the TLS files now (they are watched anyway). No-op with PEM strings. */
  reloadTls(): Promise<void>;
  readonly registry: Registry;
  readonly metrics: AdmissionMetrics;
}

function processRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

function listenError(option: string, port: number, host: string | undefined, error: unknown) {
  const where = `${host ?? '*'}:${port}`;
  return new Error(`cannot listen on ${where} (${option}): ${(error as Error).message}`, {
    cause: error,
  });
}

function listenOn(server: Http2SecureServer, port: number, host: string | undefined) {
  return new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

const TLS_SETTINGS: SecureContextOptions = { minVersion: 'TLSv1.2' };

export function createAdmissionServer(options: AdmissionServerOptions): AdmissionServer {
  const config = resolveOptions(options);
  const log = config.logger ?? pino({ name: 'kfx-admission' });
  const registry = config.registry ?? processRegistry();
  const metrics = createAdmissionMetrics(registry);
  let state: 'new' | 'starting' | 'ready' | 'shutting down' | 'closed' = 'new';
  let server: Http2SecureServer | undefined;
  let drain: ConnectionDrain | undefined;
  let watcher: TlsWatcher | undefined;
  let metricsServer: MetricsServer | undefined;

  const handler = createRequestHandler({
    webhooks: config.webhooks,
    metrics,
    log,
    limits: { maxBytes: config.maxBodyBytes, timeoutMs: config.bodyTimeoutMs },
    handlerTimeoutMs: config.handlerTimeoutMs,
    readiness,
    draining: () => drain?.draining ?? false,
  });

  function readiness(): { ok: boolean; reasons: string[] } {
    if (state !== 'ready') return { ok: false, reasons: [state === 'new' ? 'starting' : state] };
    const reasons: string[] = [];
    for (const webhook of config.webhooks) {
      try {
        const answer = webhook.readiness?.() ?? { ok: true, reasons: [] };
        if (!answer.ok)
          reasons.push(...answer.reasons.map((reason) => `${webhook.name}: ${reason}`));
        if (!answer.ok && answer.reasons.length === 0) reasons.push(`${webhook.name}: not ready`);
      } catch (error) {
        reasons.push(`${webhook.name}: readiness check failed: ${(error as Error).message}`);
      }
    }
    return { ok: reasons.length === 0, reasons };
  }

  const started: Webhook[] = [];

  async function startWebhooks(): Promise<void> {
    await Promise.all(
      config.webhooks.map(async (webhook) => {
        if (!webhook.start) return;
        try {
          await webhook.start();
          started.push(webhook);
        } catch (error) {
          throw new Error(`webhook ${webhook.name} failed to start: ${(error as Error).message}`, {
            cause: error,
          });
        }
      }),
    );
  }

  async function stopWebhooks(): Promise<void> {
    const stopping = started.splice(0).map(async (webhook) => {
      try {
        await webhook.stop?.();
      } catch (error) {
        log.error({ err: error, webhook: webhook.name }, 'webhook failed to stop');
      }
    });
    await Promise.all(stopping);
  }

  function useCertificate(pair: TlsPair, why: string): void {
    const certificate = new X509Certificate(pair.cert);
    metrics.certificateExpiry.set(Date.parse(certificate.validTo) / 1000);
    log.info(
      {
        subject: certificate.subject,
        validTo: certificate.validTo,
        serial: certificate.serialNumber,
      },
      why,
    );
  }

  async function start() {
    if (state !== 'new') throw new Error(`createAdmissionServer: start() called when ${state}`);
    state = 'starting';
    try {
      return await listen();
    } catch (error) {
      watcher?.close();
      server?.close();
      await metricsServer?.close();
      await stopWebhooks();
      state = 'closed';
      throw error;
    }
  }

  async function listen() {
    const { tls } = config;
    let pair: TlsPair;
    if ('certFile' in tls) {
      pair = await readTlsFiles(tls);
    } else {
      pair = { cert: tls.cert, key: tls.key };
      checkTlsPair(pair, 'the tls option');
    }
    useCertificate(pair, 'serving certificate loaded');
    await startWebhooks();
    const secure = createSecureServer({
      ...TLS_SETTINGS,
      ...pair,
      allowHTTP1: true,
      handshakeTimeout: 10_000,
    });
    server = secure;
    drain = trackConnections(secure);
    // HTTP/1.1 request headers must arrive within the body deadline too (slow-header clients);
    // Node checks that deadline on this interval.
    Object.assign(secure, {
      headersTimeout: config.bodyTimeoutMs,
      requestTimeout: config.bodyTimeoutMs * 2,
      connectionsCheckingInterval: Math.min(1000, config.bodyTimeoutMs),
    });
    secure.setTimeout(120_000); // idle connections
    secure.on('request', handler);
    secure.on('tlsClientError', (error) => {
      log.debug({ err: error }, 'TLS handshake failed');
    });
    secure.on('sessionError', (error) => {
      log.debug({ err: error }, 'HTTP/2 session error');
    });
    const port = await listenOn(secure, config.port, config.host).catch((error: unknown) => {
      throw listenError('port', config.port, config.host, error);
    });
    secure.on('error', (error) => {
      log.error({ err: error }, 'HTTPS server error');
    });
    if ('certFile' in tls) {
      watcher = watchTlsFiles(tls, pair, {
        pollIntervalMs: config.tlsPollIntervalMs,
        onChange: (next) => {
          secure.setSecureContext({ ...TLS_SETTINGS, ...next });
          metrics.tlsReloads.inc({ result: 'success' });
          useCertificate(next, 'serving certificate reloaded');
        },
        onError: (error) => {
          metrics.tlsReloads.inc({ result: 'error' });
          log.warn(
            { err: error },
            'TLS files changed but cannot be used; keeping the current ones',
          );
        },
      });
    }
    let metricsPort: number | undefined;
    if (config.metricsPort !== false) {
      metricsServer = createMetricsServer(registry, log);
      const { metricsPort: wanted, metricsHost } = config;
      metricsPort = await metricsServer.start(wanted, metricsHost).catch((error: unknown) => {
        throw listenError('metricsPort', wanted, metricsHost, error);
      });
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
    await metricsServer?.close();
    await stopWebhooks();
    state = 'closed';
    log.info('admission server closed');
  }

  return {
    start,
    close,
    reloadTls: async () => {
      await watcher?.check();
    },
    registry,
    metrics,
  };
}
