// `kfx expose-api serve`: the streaming HTTPS proxy in front of the apiserver, with its
// health and metrics endpoints on a separate plain-HTTP port for probes and Prometheus.
import { startOpsServer, type OpsServer } from '@kfx/kube-runtime';
import { pino, type Logger } from 'pino';
import type { Registry } from 'prom-client';
import { z } from 'zod';
import { DEFAULT_ALLOWED_PREFIXES } from '../path-allow-list.js';
import { startProxyServer } from '../proxy/server.js';
import { resolveUpstream } from '../proxy/upstream.js';
import { validateOptions, type CommandSpec } from './option-spec.js';
import { listenAddress, optionalListenAddress, pathPrefix, seconds } from './values.js';

export const serveCommand: CommandSpec = {
  name: 'serve',
  summary:
    'Run the HTTPS proxy that exposes the Kubernetes API to out-of-cluster clients, forwarding their own credentials only.',
  options: [
    {
      name: 'listen',
      flag: '--listen <addr:port>',
      kind: 'string',
      default: '0.0.0.0:8443',
      description: 'Address and port of the HTTPS listener.',
    },
    {
      name: 'tlsCert',
      flag: '--tls-cert <file>',
      kind: 'string',
      required: true,
      description: 'PEM serving certificate (with its chain); reloaded when it changes.',
    },
    {
      name: 'tlsKey',
      flag: '--tls-key <file>',
      kind: 'string',
      required: true,
      description: 'PEM private key of the serving certificate; reloaded with it.',
    },
    {
      name: 'upstream',
      flag: '--upstream <url>',
      kind: 'string',
      description:
        'API server URL. Default: in-cluster (https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT), or the server of --kubeconfig.',
    },
    {
      name: 'upstreamCa',
      flag: '--upstream-ca <file>',
      kind: 'string',
      description:
        "CA bundle that signed the API server's certificate. Default: the service account's ca.crt in a Pod, the kubeconfig's CA with --kubeconfig, else the system trust store.",
    },
    {
      name: 'kubeconfig',
      flag: '--kubeconfig <file>',
      kind: 'string',
      description: 'Take the API server URL and CA (never the credentials) from this kubeconfig.',
    },
    {
      name: 'context',
      flag: '--context <name>',
      kind: 'string',
      description: 'Context of --kubeconfig to use. Default: its current-context.',
    },
    {
      name: 'allowPath',
      flag: '--allow-path <prefix...>',
      kind: 'list',
      default: DEFAULT_ALLOWED_PREFIXES,
      description: 'Path prefixes forwarded (segment-wise); anything else gets 403.',
    },
    {
      name: 'upgrades',
      flag: '--no-upgrades',
      kind: 'boolean',
      default: true,
      description:
        'Refuse protocol upgrades (exec, attach, port-forward, WebSocket) with a clear 403.',
    },
    {
      name: 'maxHeaderBytes',
      flag: '--max-header-bytes <bytes>',
      kind: 'integer',
      default: 32768,
      description: 'Largest request head accepted; larger gets 431.',
    },
    {
      name: 'headersTimeout',
      flag: '--headers-timeout <seconds>',
      kind: 'integer',
      default: 30,
      description:
        'Time for a client to complete the TLS handshake and send the request head; slower gets 408.',
    },
    {
      name: 'idleTimeout',
      flag: '--idle-timeout <seconds>',
      kind: 'integer',
      default: 600,
      description:
        'A request, watch or upgraded connection that moves no byte for this long is closed.',
    },
    {
      name: 'metricsListen',
      flag: '--metrics-listen <addr:port>',
      kind: 'string',
      default: '0.0.0.0:9090',
      description: 'Plain-HTTP /healthz, /readyz and /metrics; "none" switches it off.',
    },
    {
      name: 'tlsReloadInterval',
      flag: '--tls-reload-interval <seconds>',
      kind: 'integer',
      default: 10,
      description:
        'How often the certificate, key and upstream CA files are re-read (changes are also noticed as they happen).',
    },
    {
      name: 'shutdownGrace',
      flag: '--shutdown-grace <seconds>',
      kind: 'integer',
      default: 10,
      description:
        'On SIGTERM, time given to requests in flight; watches and upgrades are closed at once.',
    },
    {
      name: 'logLevel',
      flag: '--log-level <level>',
      kind: 'string',
      default: 'info',
      choices: ['debug', 'info', 'warn', 'error'],
      description: 'Log level of the JSON logs (access lines are info).',
    },
  ],
};

const schema = z.strictObject({
  listen: listenAddress.prefault('0.0.0.0:8443'),
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
  headersTimeout: seconds(1, 3600).default(30),
  idleTimeout: seconds(1, 86_400).default(600),
  metricsListen: optionalListenAddress.prefault('0.0.0.0:9090'),
  tlsReloadInterval: seconds(1, 3600).default(10),
  shutdownGrace: seconds(0, 3600).default(10),
  logLevel: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
});

export type ServeOptions = z.input<typeof schema> & {
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
  const opts = validateOptions(serveCommand, schema, rest);
  const logger = givenLogger ?? pino({ name: 'kfx-expose-api', level: opts.logLevel });
  const upstream = resolveUpstream(opts);
  const proxy = await startProxyServer({
    host: opts.listen.host,
    port: opts.listen.port,
    tlsCertFile: opts.tlsCert,
    tlsKeyFile: opts.tlsKey,
    upstream,
    allowedPrefixes: opts.allowPath,
    upgrades: opts.upgrades,
    maxHeaderBytes: opts.maxHeaderBytes,
    headersTimeoutMs: opts.headersTimeout * 1000,
    idleTimeoutMs: opts.idleTimeout * 1000,
    tlsReloadIntervalMs: opts.tlsReloadInterval * 1000,
    logger,
    registry,
  });
  let ops: OpsServer | undefined;
  if (opts.metricsListen) {
    try {
      ops = await startOpsServer({
        host: opts.metricsListen.host,
        port: opts.metricsListen.port,
        registry: proxy.registry,
        readiness: () => proxy.checkUpstream(),
        logger,
      });
    } catch (error) {
      await proxy.close(0);
      throw new Error(`--metrics-listen: cannot listen: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  logger.info(
    {
      url: proxy.url,
      upstream: upstream.source,
      allowPath: opts.allowPath,
      upgrades: opts.upgrades,
      ops: ops?.url,
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
