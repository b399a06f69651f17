// The exposer's HTTPS server: limits (header size, handshake and header arrival, body arrival,
// idle time, requests in flight, long-running requests, open connections in all, per source,
// per identity and before authentication), the request and upgrade paths, TLS reload, and a
// shutdown that lets short requests finish and then closes long-lived streams, whose clients
// reconnect to another replica.
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type tls from 'node:tls';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { loadTlsFiles, watchTlsFiles, type TlsMaterial } from '@kfx/kube-runtime/serving';
import { listenFailure } from '../options-error.js';
import { handleClientError, refuseConnect } from './client-errors.js';
import { ConnectionLimits, type ConnectionLimitOptions } from './connection-limits.js';
import { forwardRequest } from './forward.js';
import { InflightLimits } from './inflight.js';
import { LongRunningLimits, type LongRunningLimitOptions } from './long-running.js';
import { createProxyMetrics } from './metrics.js';
import { RefusalLog } from './refusal-log.js';
import { forwardUpgrade } from './upgrade.js';
import { UpstreamPool } from './upstream-pool.js';
import { ProvenTokens } from './proven-tokens.js';
import { Door, type DoorOptions } from '../door/door.js';
import { watchCaCopy } from '../interlink/ca-copy-watch.js';
import { probeUpstream } from './upstream-probe.js';
import type { Upstream } from './upstream.js';

export interface ProxyServerOptions
  extends
    ConnectionLimitOptions,
    LongRunningLimitOptions,
    Omit<DoorOptions, 'metrics' | 'refusals'> {
  host: string;
  /** 0 picks a free port. */
  port: number;
  tlsCertFile: string;
  tlsKeyFile: string;
  upstream: Upstream;
  allowedPrefixes: readonly string[];
  upgrades: boolean;
  maxHeaderBytes: number;
  /** Time for a client to finish its TLS handshake. */
  handshakeTimeoutMs: number;
  /** Time for a request head to arrive. */
  headersTimeoutMs: number;
  idleTimeoutMs: number;
  /** Time for a request body to arrive once its head has; 0 for no limit. */
  requestBodyTimeoutMs: number;
  /** Plain requests without a body in flight at once; more get 429. */
  maxRequestsInflight: number;
  /** Requests with a body (or a method that changes something) in flight at once; more get 429. */
  maxMutatingRequestsInflight: number;
  /** Open client connections, streams and upgrades included; more are closed on accept. */
  maxConnections: number;
  tlsReloadIntervalMs: number;
  /** interLink's ConfigMap or Secret with its copy of the CA, watched. */
  interlinkConfig?: { namespace: string; name: string } | undefined;
  logger: Logger;
  registry?: Registry | undefined;
}

export interface ProxyServer {
  /** `https://host:port` as listened on. */
  url: string;
  port: number;
  registry: Registry;
  /** Re-reads the certificate, key and upstream CA now (also done on change and on an interval). */
  reloadTls(): Promise<void>;
  /** Whether the upstream answers a TLS handshake with a certificate the proxy trusts. */
  checkUpstream(): Promise<{ ok: boolean; reasons: string[] }>;
  /** Stops accepting; waits up to `graceMs` for plain requests, then closes everything. */
  close(graceMs?: number): Promise<void>;
}

const KEEP_ALIVE_TIMEOUT_MS = 65_000;

export async function startProxyServer(options: ProxyServerOptions): Promise<ProxyServer> {
  const { logger } = options;
  const metrics = createProxyMetrics(options.registry);
  const pool = new UpstreamPool(options.upstream);
  const tlsFiles = {
    certFile: options.tlsCertFile,
    keyFile: options.tlsKeyFile,
    caFile: options.upstream.caFile,
  };
  const loaded = await loadTlsFiles({ certFile: tlsFiles.certFile, keyFile: tlsFiles.keyFile });
  const initial: TlsMaterial = { ...loaded, ca: options.upstream.ca };
  const serving = { cert: initial.cert, key: initial.key };
  const recordExpiry = (material: TlsMaterial) => {
    metrics.certificateExpiry.set(Date.parse(material.certificate.validTo) / 1000);
  };
  recordExpiry(initial);
  const tlsSettings = { minVersion: 'TLSv1.2' as const, ALPNProtocols: ['http/1.1'] };
  const limits = {
    maxHeaderBytes: options.maxHeaderBytes,
    headersTimeoutMs: options.headersTimeoutMs,
  };
  const idleClosed = new WeakSet<object>();
  const refusals = new RefusalLog(logger);
  const connections = new ConnectionLimits(options, metrics);
  const deps = {
    connections,
    longRunning: new LongRunningLimits(options),
    tokens: new ProvenTokens(pool, metrics),
    door: new Door({ ...options, metrics, refusals }),
    refusals,
    pool,
    metrics,
    logger,
    allowedPrefixes: options.allowedPrefixes,
    idleClosed,
    idleTimeoutMs: options.idleTimeoutMs,
    inflight: new InflightLimits(
      { readonly: options.maxRequestsInflight, mutating: options.maxMutatingRequestsInflight },
      metrics.inflightRequests,
    ),
    requestBodyTimeoutMs: options.requestBodyTimeoutMs,
  };

  const server = https.createServer(
    {
      ...tlsSettings,
      ...serving,
      maxHeaderSize: options.maxHeaderBytes,
      headersTimeout: options.headersTimeoutMs,
      // Watches and exec sessions last as long as they are used; idleness is limited instead,
      // and the arrival of request bodies by the proxy itself (forward.ts).
      requestTimeout: 0,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      connectionsCheckingInterval: Math.min(1000, options.headersTimeoutMs),
      handshakeTimeout: options.handshakeTimeoutMs,
      noDelay: true,
    },
    (request, response) => {
      forwardRequest(deps, request, response);
    },
  );
  // Beyond the cap a connection is closed as it is accepted, before any TLS work: an answer
  // would cost the handshake that the cap is there to save.
  server.maxConnections = options.maxConnections;
  const refuse = (limit: string, remoteAddress: string | undefined) => {
    metrics.connectionsRefused.inc({ limit });
    refusals.refused(
      limit,
      { remoteAddress },
      `connection refused: the proxy's ${limit} limit is reached`,
    );
  };
  server.on('drop', (data?: { remoteAddress?: string }) => {
    refuse('maxConnections', data?.remoteAddress);
  });
  server.on('connection', (socket: Socket) => {
    const refused = connections.admit(socket);
    if (refused !== undefined) {
      refuse(refused, socket.remoteAddress);
      socket.destroy();
      return;
    }
    metrics.connections.inc();
    socket.once('close', () => {
      metrics.connections.dec();
    });
  });
  const sockets = new Set<Socket>();
  server.on('secureConnection', (socket: tls.TLSSocket) => {
    connections.secured(socket);
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.setTimeout(options.idleTimeoutMs, (socket) => {
    idleClosed.add(socket);
    socket.destroy();
  });
  server.on('upgrade', (request, socket, head) => {
    forwardUpgrade({ ...deps, upgrades: options.upgrades }, request, socket, head);
  });
  server.on('connect', (request, socket) => {
    refuseConnect(logger, metrics, request, socket);
  });
  server.on('clientError', (error, socket) => {
    handleClientError(logger, metrics, limits, error, socket);
  });
  server.on('tlsClientError', (error, socket) => {
    if ((error as NodeJS.ErrnoException).code === 'ERR_TLS_HANDSHAKE_TIMEOUT')
      metrics.tlsHandshakeTimeouts.inc();
    logger.debug({ err: error, remoteAddress: socket.remoteAddress }, 'TLS handshake failed');
    socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    const failed = (error: Error) => {
      pool.close();
      reject(listenFailure('serve', options, error));
    };
    server.once('error', failed);
    server.listen(options.port, options.host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  server.on('error', (error) => {
    logger.error({ err: error }, 'proxy server error');
  });
  // Certificate, key and upstream CA stay current without a restart (cert-manager renews into
  // the Secret; the kubelet swaps the mounted files); a half-written or mismatched pair never
  // replaces the one in use.
  const watcher = watchTlsFiles(tlsFiles, initial, {
    pollIntervalMs: Math.min(2000, options.tlsReloadIntervalMs),
    rereadIntervalMs: options.tlsReloadIntervalMs,
    onChange: (next, previous) => {
      if (next.cert !== previous.cert || next.key !== previous.key) {
        server.setSecureContext({ ...tlsSettings, cert: next.cert, key: next.key });
        recordExpiry(next);
        metrics.tlsReloads.inc({ result: 'ok' });
        const { subjectAltName, validTo } = next.certificate;
        logger.info(
          { certFile: tlsFiles.certFile, subjectAltName, validTo },
          'serving certificate reloaded',
        );
      }
      if (next.ca !== previous.ca && next.ca !== undefined) {
        pool.setCa(next.ca);
        metrics.tlsReloads.inc({ result: 'ok' });
        logger.info({ caFile: tlsFiles.caFile }, 'upstream CA reloaded');
      }
    },
    onError: (error) => {
      metrics.tlsReloads.inc({ result: 'error' });
      logger.warn({ err: error }, 'TLS files not reloaded; the previous ones stay in use');
    },
  });
  const stopCaCopyWatch =
    options.interlinkConfig !== undefined && options.client !== undefined
      ? watchCaCopy({
          client: options.client,
          config: options.interlinkConfig,
          certFile: options.tlsCertFile,
          metrics,
          logger,
        })
      : () => undefined;
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;

  return {
    url: `https://${host}:${port}`,
    port,
    registry: metrics.registry,
    reloadTls: () => watcher.check(),
    checkUpstream: () => probeUpstream(pool),
    close: async (graceMs = 10_000) => {
      watcher.close();
      stopCaCopyWatch();
      const closed = new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
      server.closeIdleConnections();
      const deadline = setTimeout(() => {
        for (const socket of sockets) socket.destroy();
      }, graceMs);
      // Streams never end by themselves: they are closed now; plain requests get the grace.
      await requestsSettled(metrics, graceMs);
      for (const socket of sockets) socket.destroy();
      clearTimeout(deadline);
      await closed;
      pool.close();
    },
  };
}

/** Waits until no plain request is in flight (watches and upgrades do not count), or the grace ends. */
async function requestsSettled(
  metrics: ReturnType<typeof createProxyMetrics>,
  graceMs: number,
): Promise<void> {
  const until = Date.now() + graceMs;
  for (;;) {
    const value =
      (await metrics.activeStreams.get()).values.find((v) => v.labels.kind === 'request')?.value ??
      0;
    if (value <= 0 || Date.now() >= until) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
