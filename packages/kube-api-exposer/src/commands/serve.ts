// `serve` (`kfx expose-api serve`): the streaming HTTPS proxy in front of the apiserver, with its
// health and metrics endpoints on a separate plain-HTTP port for probes and Prometheus, on
// kube-runtime's Runtime: `run()` serves until SIGTERM (SIGHUP re-reads the certificates),
// drains and gives the exit code, as kfx-webhook and kfx-controller do.
import { KubeClient, loadKubeConfig } from '@kfx/kube-runtime/client';
import { messageOf, Runtime } from '@kfx/kube-runtime/serving';
import { pino, type Logger } from 'pino';
import { Registry } from 'prom-client';
import type { z } from 'zod';
import { startProxyServer, type ProxyServer } from '../proxy/server.js';
import { resolveUpstream } from '../proxy/upstream.js';
import { listenFailure, unusableOption } from '../options-error.js';
import { validateOptions } from './validate-options.js';
import { resolveCaps } from './serve-caps.js';
import { serveSchema } from './serve-options.js';

export type ServeOptions = z.input<typeof serveSchema> & {
  /** Use this logger instead of a new pino logger on stdout. */
  logger?: Logger | undefined;
  /** Register the metrics here instead of on a new Registry. */
  registry?: Registry | undefined;
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
  /**
   * Serves until SIGTERM or SIGINT (SIGHUP re-reads the certificates), drains, and resolves with
   * the exit code: 0 after the drain, 1 when it failed while serving; a second signal exits 1 at
   * once.
   */
  run(): Promise<number>;
}

export async function serve(options: ServeOptions): Promise<RunningExposer> {
  const { logger: givenLogger, registry = new Registry(), ...rest } = options;
  const opts = validateOptions('serve', serveSchema, rest);
  const logger = givenLogger ?? pino({ name: 'kfx-expose-api', level: opts.logLevel });
  const upstream = resolveUpstream(opts);
  const caps = resolveCaps(opts);
  const { metrics } = opts;
  const doorClient = identityClient(opts, logger);
  const runtime = new Runtime({
    name: 'kfx expose-api serve',
    logger,
    registry,
    ops: metrics === false ? false : { host: metrics.host, port: metrics.port },
    opsListenError: (error) =>
      metrics ? listenFailure('serve', metrics, error, 'metrics.') : error,
  });
  let proxy: ProxyServer | undefined;
  runtime.add({
    name: 'proxy',
    start: async () => {
      proxy = await startProxyServer({
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
        remoteNodes: opts.remoteNodes,
        podTokens: opts.podTokens,
        client: doorClient,
        exchangeLifetimeSeconds: opts.exchangeLifetime,
        apiAudiences: opts.apiAudiences,
        interlinkConfig: opts.interlinkConfig,
        tlsReloadIntervalMs: opts.tlsReloadInterval * 1000,
        logger,
        registry,
      });
    },
    stop: async () => {
      await proxy?.close(opts.shutdownGrace * 1000);
      doorClient?.close();
    },
    ready: () => proxy?.checkUpstream() ?? { ok: false, reasons: ['the proxy is starting'] },
    reload: () => proxy?.reloadTls(),
  });
  await runtime.start();
  if (!proxy) throw new Error('serve: stopped while starting');
  const started = proxy;
  logger.info(
    {
      url: started.url,
      upstream: upstream.source,
      allowPath: opts.allowPath,
      upgrades: opts.upgrades,
      remoteNodes: opts.remoteNodes,
      podTokens: opts.podTokens,
      ops: runtime.opsUrl,
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
  return {
    url: started.url,
    port: started.port,
    opsUrl: runtime.opsUrl,
    registry,
    reloadTls: () => started.reloadTls(),
    close: () => runtime.stop(),
    closed: runtime.done.catch(() => undefined),
    run: () => runtime.run(),
  };
}

/**
 * The exposer's own credentials, for the door's calls only (the keys that sign tokens, remote
 * Pods, TokenRequests); never sent with a caller's request. Needed only with `remoteNodes`.
 */
function identityClient(
  opts: {
    remoteNodes: readonly string[];
    interlinkConfig?: unknown;
    identityKubeconfig?: string | undefined;
  },
  logger: Logger,
): KubeClient | undefined {
  if (opts.remoteNodes.length === 0 && opts.interlinkConfig === undefined) return undefined;
  const file = opts.identityKubeconfig;
  try {
    const kc =
      file === undefined
        ? loadKubeConfig({ inCluster: true })
        : loadKubeConfig({ kubeconfig: file });
    return KubeClient.fromKubeConfig(kc, { logger: logger.child({ component: 'door' }) });
  } catch (error) {
    throw unusableOption(
      'serve',
      file !== undefined
        ? 'identityKubeconfig'
        : opts.remoteNodes.length > 0
          ? 'remoteNodes'
          : 'interlinkConfig',
      file === undefined
        ? `\`remoteNodes\` and \`interlinkConfig\` need credentials of the exposer's own: run it in a Pod (its ServiceAccount) or give \`identityKubeconfig\` (${messageOf(error)})`
        : messageOf(error),
      error,
    );
  }
}
