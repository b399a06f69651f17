// `serve` (`kfx expose-api serve`): the streaming HTTPS proxy in front of the apiserver, with its
// health and metrics endpoints on a separate plain-HTTP port for probes and Prometheus.
import { startOpsServer, type OpsServer } from '@kfx/kube-runtime';
import { pino, type Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { z } from 'zod';
import { startProxyServer } from '../proxy/server.js';
import { resolveUpstream } from '../proxy/upstream.js';
import { listenFailure, validateOptions } from './options.js';
import { resolveCaps } from './serve-caps.js';
import { serveSchema } from './serve-options.js';

export type ServeOptions = z.input<typeof serveSchema> & {
  /** Use this logger instead of a new pino logger on stdout. */
  logger?: Logger | undefined;
  /** Register the metrics here instead of on a new Registry. */
  registry?: Registry | undefined;
  /** Close gracefully on these signals (the CLI passes SIGTERM and SIGINT); SIGHUP then reloads TLS. */
  stopOnSignals?: readonly NodeJS.Signals[] | undefined;
};

export interface RunningExposer {
  /** `https://host:port` */
  url: string;
  port: number;
  /** `http://host:port` of /healthz, /readyz and /metrics, unless switched off. */
  opsUrl: string | undefined;
  registry: Registry;
  /** Re-reads the serving certificate, key and upstream CA now. */
  reloadTls(): Promise<void>;
  /** Stops gracefully; resolves when everything is closed. */
  close(): Promise<void>;
  /** Resolves when the exposer has stopped (after `close()` or a signal). */
  closed: Promise<void>;
}

export async function serve(options: ServeOptions): Promise<RunningExposer> {
  const { logger: givenLogger, registry, stopOnSignals = [], ...rest } = options;
  const opts = validateOptions('serve', serveSchema, rest);
  const logger = givenLogger ?? pino({ name: 'kfx-expose-api', level: opts.logLevel });
  const upstream = resolveUpstream(opts);
  const caps = resolveCaps(opts);
  const proxy = await startProxyServer({
    host: opts.host,
    port: opts.port,
    tlsCertFile: opts.tlsCert,
    tlsKeyFile: opts.tlsKey,
    upstream,
    allowedPrefixes: opts.allowPath,
    upgrades: opts.upgrades,
    maxHeaderBytes: opts.maxHeaderBytes,
    handshakeTimeoutMs: opts.handshakeTimeout * 1000,
    headersTimeoutMs: opts.headersTimeout * 1000,
    idleTimeoutMs: opts.idleTimeout * 1000,
    requestBodyTimeoutMs: opts.requestBodyTimeout * 1000,
    maxRequestsInflight: opts.maxRequestsInflight,
    maxMutatingRequestsInflight: opts.maxMutatingRequestsInflight,
    maxConnections: opts.maxConnections,
    ...caps,
    tlsReloadIntervalMs: opts.tlsReloadInterval * 1000,
    logger,
    registry,
  });
  let ops: OpsServer | undefined;
  if (opts.metrics) {
    try {
      ops = await startOpsServer({
        host: opts.metrics.host,
        port: opts.metrics.port,
        registry: proxy.registry,
        readiness: () => proxy.checkUpstream(),
        logger,
      });
    } catch (error) {
      await proxy.close(0);
      throw listenFailure('serve', opts.metrics, error, 'metrics.');
    }
  }
  logger.info(
    {
      url: proxy.url,
      upstream: upstream.source,
      allowPath: opts.allowPath,
      upgrades: opts.upgrades,
      ops: ops?.url,
      limits: {
        maxConnections: opts.maxConnections,
        ...caps,
        maxRequestsInflight: opts.maxRequestsInflight,
        maxMutatingRequestsInflight: opts.maxMutatingRequestsInflight,
        handshakeTimeout: opts.handshakeTimeout,
        headersTimeout: opts.headersTimeout,
      },
    },
    'kfx expose-api is serving',
  );

  let resolveClosed: (() => void) | undefined;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  let closing: Promise<void> | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signal === 'SIGHUP') {
      void proxy.reloadTls();
      return;
    }
    logger.info({ signal }, 'shutting down');
    void close();
  };
  const signals = stopOnSignals.length > 0 ? [...stopOnSignals, 'SIGHUP' as const] : [];
  for (const signal of signals) process.on(signal, onSignal);
  const close = () =>
    (closing ??= (async () => {
      for (const signal of signals) process.off(signal, onSignal);
      await Promise.all([proxy.close(opts.shutdownGrace * 1000), ops?.close()]);
      resolveClosed?.();
    })());

  return {
    url: proxy.url,
    port: proxy.port,
    opsUrl: ops?.url,
    registry: proxy.registry,
    reloadTls: () => proxy.reloadTls(),
    close,
    closed,
  };
}
