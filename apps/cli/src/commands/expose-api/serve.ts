// `kfx expose-api serve`: the HTTPS proxy that exposes the API server to out-of-cluster clients.
// Its addresses are `ADDR:PORT` flags, read here into the library's `host`/`port` and `metrics`.
import { isIP } from 'node:net';
import {
  capDefault,
  DEFAULT_ALLOWED_PREFIXES,
  serve,
  SERVE_DEFAULTS as D,
  type CapName,
  type ServeOptions,
} from '@kfx/kube-api-exposer';
import { Command, Option } from 'commander';
import { CliError } from '../../cli-exit.js';
import { examples, verbAction, wholeNumber, type Verb } from './verb.js';

export interface ListenAddress {
  host: string;
  port: number;
}

/** `ADDR:PORT`, `[v6]:PORT` or `:PORT` (every interface). */
export function parseListen(text: string): ListenAddress | undefined {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text.trim());
  if (!match) return undefined;
  const host = match[1] ?? (match[2] === '' ? '0.0.0.0' : match[2]) ?? '0.0.0.0';
  const port = Number(match[3]);
  if (port > 65535) return undefined;
  if (match[1] !== undefined && isIP(host) !== 6) return undefined;
  return { host, port };
}

/** serve's options from the flags' values: the listen addresses converted, a bad one named. */
function serveOptions(values: Record<string, unknown>): Record<string, unknown> {
  const { listen, metricsListen, remoteNode, apiAudience, ...options } = values;
  if (remoteNode !== undefined) options.remoteNodes = remoteNode;
  if (apiAudience !== undefined) options.apiAudiences = apiAudience;
  const problems: string[] = [];
  if (typeof listen === 'string') {
    const address = parseListen(listen);
    if (address) Object.assign(options, address);
    else
      problems.push(
        `--listen: expected ADDR:PORT such as 0.0.0.0:8443 or [::]:8443, got ${JSON.stringify(listen)}`,
      );
  }
  if (typeof metricsListen === 'string') {
    const address = parseListen(metricsListen);
    if (metricsListen === 'none' || metricsListen === '') options.metrics = false;
    else if (address) options.metrics = address;
    else
      problems.push(
        `--metrics-listen: expected ADDR:PORT such as 0.0.0.0:9090, or none, got ${JSON.stringify(metricsListen)}`,
      );
  }
  if (problems.length > 0) throw new CliError(`kfx expose-api serve: ${problems.join('; ')}`);
  return options;
}

export const serveVerb: Verb = {
  fedBy: {
    host: 'listen',
    port: 'listen',
    metrics: 'metricsListen',
    remoteNodes: 'remoteNode',
    apiAudiences: 'apiAudience',
  },
  async run(values) {
    const running = await serve(serveOptions(values) as ServeOptions);
    return { stdout: '', stderr: '', run: () => running.run() };
  },
};

/** `ADDR:PORT` of a listener's defaults. */
const listenAddress = ({ host, port }: { host: string; port: number }) =>
  `${host.includes(':') ? `[${host}]` : host}:${String(port)}`;

/** A cap's default, in the flags' words: `Default: 3/5 of --max-connections (300).` */
const capHelp = (name: CapName) =>
  `Default: ${capDefault(name, D.maxConnections, () => '--max-connections')}.`;

export function serveCommand(): Command {
  return new Command('serve')
    .description(
      'Run the HTTPS proxy that exposes the Kubernetes API to out-of-cluster clients, forwarding their own credentials only.',
    )
    .option('--listen <addr:port>', 'Address and port of the HTTPS listener.', listenAddress(D))
    .addOption(
      new Option(
        '--tls-cert <file>',
        'PEM serving certificate (with its chain); reloaded when it changes.',
      ).makeOptionMandatory(),
    )
    .addOption(
      new Option(
        '--tls-key <file>',
        'PEM private key of the serving certificate; reloaded with it.',
      ).makeOptionMandatory(),
    )
    .option(
      '--upstream <url>',
      'API server URL. Default: in-cluster (https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT), or the server of --kubeconfig.',
    )
    .option(
      '--upstream-ca <file>',
      "CA bundle that signed the API server's certificate. Default: the service account's ca.crt in a Pod, the kubeconfig's CA with --kubeconfig, else the system trust store.",
    )
    .option(
      '--kubeconfig <file>',
      'Take the API server URL and CA (never the credentials) from this kubeconfig.',
    )
    .option('--context <name>', 'Context of --kubeconfig to use. Default: its current-context.')
    .option(
      '--allow-path <prefix...>',
      'Path prefixes forwarded (segment-wise); anything else gets 403.',
      [...DEFAULT_ALLOWED_PREFIXES],
    )
    .option(
      '--no-upgrades',
      'Refuse protocol upgrades (exec, attach, port-forward, WebSocket) with a clear 403.',
    )
    .option(
      '--max-header-bytes <bytes>',
      'Largest request head accepted; larger gets 431.',
      wholeNumber,
      D.maxHeaderBytes,
    )
    .option(
      '--handshake-timeout <seconds>',
      'Time for a client to complete its TLS handshake; slower is closed.',
      wholeNumber,
      D.handshakeTimeout,
    )
    .option(
      '--headers-timeout <seconds>',
      'Time for a request head to arrive; slower gets 408.',
      wholeNumber,
      D.headersTimeout,
    )
    .option(
      '--request-body-timeout <seconds>',
      'Time for a request body to arrive once its head has; slower gets 408 (responses, watches and upgrades are not limited by it).',
      wholeNumber,
      D.requestBodyTimeout,
    )
    .option(
      '--max-requests-inflight <n>',
      'Requests without a body that only read (GET, HEAD, OPTIONS) in flight at once; more get 429 with Retry-After. Watches count under --max-long-running instead.',
      wholeNumber,
      D.maxRequestsInflight,
    )
    .option(
      '--max-mutating-requests-inflight <n>',
      'Requests with a body or a method that changes something in flight at once; more get 429 with Retry-After.',
      wholeNumber,
      D.maxMutatingRequestsInflight,
    )
    .option(
      '--max-connections <n>',
      'Open client connections (watches and exec sessions included); more are closed as they arrive. Bounds the memory the proxy uses.',
      wholeNumber,
      D.maxConnections,
    )
    .option(
      '--max-connections-per-source <n>',
      `Open connections from one client address (an IPv6 /64); more are closed as they arrive. ${capHelp('maxConnectionsPerSource')}`,
      wholeNumber,
    )
    .option(
      '--max-unauthenticated-connections <n>',
      `Connections on which the apiserver has not yet accepted a token (TLS handshakes, heads still arriving, anonymous callers, refused tokens); a new one closes the oldest without a request in flight. Keeps the rest of --max-connections for authenticated clients. ${capHelp('maxUnauthenticatedConnections')}`,
      wholeNumber,
    )
    .option(
      '--max-unauthenticated-connections-per-source <n>',
      `Unauthenticated connections from one client address (an IPv6 /64); more are closed as they arrive. ${capHelp('maxUnauthenticatedConnectionsPerSource')}`,
      wholeNumber,
    )
    .option(
      '--max-connections-per-identity <n>',
      `Connections authenticated for one identity (a namespace's service accounts, a user, a token); more are closed after their first answer. ${capHelp('maxConnectionsPerIdentity')}`,
      wholeNumber,
    )
    .option(
      '--max-long-running <n>',
      `Watches, followed logs and upgraded connections (exec, attach, port-forward) at once; more get 429 with Retry-After. ${capHelp('maxLongRunning')}`,
      wholeNumber,
    )
    .option(
      '--max-long-running-per-identity <n>',
      `Long-running requests of one identity (a namespace's service accounts, a user, a token) at once; more get 429 with Retry-After. ${capHelp('maxLongRunningPerIdentity')}`,
      wholeNumber,
    )
    .option(
      '--remote-node <name...>',
      "A remote node (interLink's virtual node): tokens bound to its Pods come in, checked here and forwarded as short-lived tokens of the same ServiceAccount and Pod. Needs the exposer's own credentials: its ServiceAccount in a Pod, or --identity-kubeconfig.",
    )
    .addOption(
      new Option(
        '--pod-tokens <which>',
        'remote: a token bound to a Pod passes only for a Pod on a --remote-node (403 otherwise, naming the Pod); any: Pod tokens pass as they are.',
      )
        .choices(['remote', 'any'])
        .default(D.podTokens),
    )
    .option(
      '--exchange-lifetime <seconds>',
      "Lifetime asked for the token forwarded in place of a remote Pod's (at least 600).",
      wholeNumber,
      D.exchangeLifetime,
    )
    .option(
      '--api-audience <audience...>',
      "The audiences the API server accepts (its --api-audiences): a remote Pod's token must be for one. Default: the API server's issuer.",
    )
    .option(
      '--interlink-config <namespace/name>',
      "interLink's ConfigMap or Secret holding its copy of this exposer's CA (kubernetesApiCaCrt): compared with the certificate served at start and every 5 minutes, as a metric and a log line. Needs the exposer's own credentials.",
    )
    .option(
      '--identity-kubeconfig <file>',
      "Credentials for the exposer's own calls with --remote-node (the keys that sign tokens, Pods, TokenRequests); never sent with a caller's request. Default: the Pod's service account.",
    )
    .option(
      '--idle-timeout <seconds>',
      'A request, watch or upgraded connection that moves no byte for this long is closed.',
      wholeNumber,
      D.idleTimeout,
    )
    .option(
      '--metrics-listen <addr:port>',
      'Plain-HTTP /healthz, /readyz and /metrics; "none" switches it off.',
      listenAddress(D.metrics),
    )
    .option(
      '--tls-reload-interval <seconds>',
      'How often the certificate, key and upstream CA files are re-read (changes are also noticed as they happen).',
      wholeNumber,
      D.tlsReloadInterval,
    )
    .option(
      '--shutdown-grace <seconds>',
      'On SIGTERM, time given to requests in flight; watches and upgrades are closed at once.',
      wholeNumber,
      D.shutdownGrace,
    )
    .addOption(
      new Option('--log-level <level>', 'Log level of the JSON logs (access lines are info).')
        .choices(['debug', 'info', 'warn', 'error'])
        .default(D.logLevel),
    )
    .addHelpText(
      'after',
      examples(`  $ kfx expose-api serve --listen 0.0.0.0:6443 --tls-cert tls.crt --tls-key tls.key
  $ kfx expose-api serve --listen 127.0.0.1:6443 --tls-cert tls.crt --tls-key tls.key --kubeconfig ~/.kube/config`),
    )
    .action(verbAction(serveVerb));
}
