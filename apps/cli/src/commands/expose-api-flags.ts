// The flags of `kfx expose-api <command>`: the CLI's own option language over the typed
// functions of @kfx/kube-api-exposer. Each flag's `name` is the key commander gives its value
// and, except where `toLibraryOptions` converts it (`--listen ADDR:PORT` → host and port), the
// option of the library function it is passed to; `flagOf` goes back from an option to its
// flag, so what the library says about its options (validation errors, files it cannot read,
// an address it cannot listen on, hints in check's report) is shown with the flags the user typed.
import { isIP } from 'node:net';
import { DEFAULT_ALLOWED_PREFIXES } from '@kfx/kube-api-exposer';

type FlagKind = 'string' | 'integer' | 'boolean' | 'list';

export interface FlagSpec {
  /** The key commander gives the value (`tlsCert` for `--tls-cert`). */
  name: string;
  /**
   * The flag as commander writes it: `--tls-cert <file>`; `--allow-path <prefix...>` for a list;
   * `--no-upgrades` for a boolean that defaults to true.
   */
  flag: string;
  description: string;
  kind: FlagKind;
  default?: string | number | boolean | readonly string[];
  required?: boolean;
  /** The only values accepted. */
  choices?: readonly string[];
}

export interface CommandSpec {
  /** The subcommand: `kfx expose-api <name>`. */
  name: string;
  summary: string;
  options: readonly FlagSpec[];
}

/** `--context`, where it only picks the context of `--kubeconfig`. */
const contextFlag: FlagSpec = {
  name: 'context',
  flag: '--context <name>',
  kind: 'string',
  description: 'Context of --kubeconfig to use.',
};

/** `--server`, where the exposed address must be given. */
const exposedServerFlag: FlagSpec = {
  name: 'server',
  flag: '--server <url>',
  kind: 'string',
  required: true,
  description: 'The exposed address, e.g. https://203.0.113.10:443.',
};

const serveFlags: CommandSpec = {
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
      name: 'handshakeTimeout',
      flag: '--handshake-timeout <seconds>',
      kind: 'integer',
      default: 5,
      description: 'Time for a client to complete its TLS handshake; slower is closed.',
    },
    {
      name: 'headersTimeout',
      flag: '--headers-timeout <seconds>',
      kind: 'integer',
      default: 10,
      description: 'Time for a request head to arrive; slower gets 408.',
    },
    {
      name: 'requestBodyTimeout',
      flag: '--request-body-timeout <seconds>',
      kind: 'integer',
      default: 60,
      description:
        'Time for a request body to arrive once its head has; slower gets 408 (responses, watches and upgrades are not limited by it).',
    },
    {
      name: 'maxRequestsInflight',
      flag: '--max-requests-inflight <n>',
      kind: 'integer',
      default: 400,
      description:
        'Requests without a body that only read (GET, HEAD, OPTIONS) in flight at once; more get 429 with Retry-After. Watches count under --max-long-running instead.',
    },
    {
      name: 'maxMutatingRequestsInflight',
      flag: '--max-mutating-requests-inflight <n>',
      kind: 'integer',
      default: 200,
      description:
        'Requests with a body or a method that changes something in flight at once; more get 429 with Retry-After.',
    },
    {
      name: 'maxConnections',
      flag: '--max-connections <n>',
      kind: 'integer',
      default: 500,
      description:
        'Open client connections (watches and exec sessions included); more are closed as they arrive. Bounds the memory the proxy uses.',
    },
    {
      name: 'maxConnectionsPerSource',
      flag: '--max-connections-per-source <n>',
      kind: 'integer',
      description:
        'Open connections from one client address (an IPv6 /64); more are closed as they arrive. Default: 1/2 of --max-connections (250).',
    },
    {
      name: 'maxUnauthenticatedConnections',
      flag: '--max-unauthenticated-connections <n>',
      kind: 'integer',
      description:
        'Connections on which the apiserver has not yet accepted a credential (TLS handshakes, heads still arriving, anonymous callers); a new one closes the oldest without a request in flight. Keeps the rest of --max-connections for authenticated clients. Default: 1/5 of --max-connections (100).',
    },
    {
      name: 'maxUnauthenticatedConnectionsPerSource',
      flag: '--max-unauthenticated-connections-per-source <n>',
      kind: 'integer',
      description:
        'Unauthenticated connections from one client address (an IPv6 /64); more are closed as they arrive. Default: 1/25 of --max-connections (20).',
    },
    {
      name: 'maxConnectionsPerIdentity',
      flag: '--max-connections-per-identity <n>',
      kind: 'integer',
      description:
        "Connections authenticated for one identity (a namespace's service accounts, a user, a token); more are closed after their first answer. Default: 1/5 of --max-connections (100).",
    },
    {
      name: 'maxLongRunning',
      flag: '--max-long-running <n>',
      kind: 'integer',
      description:
        'Watches, followed logs and upgraded connections (exec, attach, port-forward) at once; more get 429 with Retry-After. Default: 3/5 of --max-connections (300).',
    },
    {
      name: 'maxLongRunningPerIdentity',
      flag: '--max-long-running-per-identity <n>',
      kind: 'integer',
      description:
        "Long-running requests of one identity (a namespace's service accounts, a user, a token) at once; more get 429 with Retry-After. Default: 1/10 of --max-connections (50).",
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

const manifestsFlags: CommandSpec = {
  name: 'manifests',
  summary:
    'Render the proxy’s Deployment, Service or Ingress, and cert-manager Certificate for the external address, as YAML or a Helm chart.',
  options: [
    {
      name: 'externalAddress',
      flag: '--external-address <address...>',
      kind: 'list',
      required: true,
      description:
        'IP addresses and DNS names clients use to reach the proxy; all go into the certificate.',
    },
    {
      name: 'name',
      flag: '--name <name>',
      kind: 'string',
      default: 'kfx-expose-api',
      description: 'Name of every object (and the Helm release).',
    },
    {
      name: 'namespace',
      flag: '--namespace <namespace>',
      kind: 'string',
      default: 'kfx-system',
      description: 'Namespace of the objects (YAML output; Helm uses the release namespace).',
    },
    {
      name: 'image',
      flag: '--image <image>',
      kind: 'string',
      description:
        'Container image whose entrypoint is the kfx CLI (required; the kfx CLI passes its own image, kfx/cli:<its version>).',
    },
    {
      name: 'replicas',
      flag: '--replicas <n>',
      kind: 'integer',
      default: 2,
      description:
        'Proxy Pods; more than one adds a PodDisruptionBudget and spreads them over nodes.',
    },
    {
      name: 'expose',
      flag: '--expose <how>',
      kind: 'string',
      default: 'loadbalancer',
      choices: ['loadbalancer', 'nodeport', 'ingress'],
      description:
        'How clients reach the proxy: a LoadBalancer or NodePort Service (TLS straight to the proxy), or an ingress-nginx Ingress.',
    },
    {
      name: 'port',
      flag: '--port <port>',
      kind: 'integer',
      default: 443,
      description: 'The Service port clients connect to.',
    },
    {
      name: 'nodePort',
      flag: '--node-port <port>',
      kind: 'integer',
      description: 'Pin the NodePort (30000-32767) with --expose nodeport.',
    },
    {
      name: 'ingressClass',
      flag: '--ingress-class <class>',
      kind: 'string',
      default: 'nginx',
      description:
        'ingressClassName with --expose ingress (e.g. a second, internal ingress-nginx).',
    },
    {
      name: 'issuer',
      flag: '--issuer <kind/name>',
      kind: 'string',
      description:
        'Use an existing cert-manager issuer (Issuer/NAME or ClusterIssuer/NAME) instead of rendering a self-signed CA.',
    },
    {
      name: 'caDuration',
      flag: '--ca-duration <duration>',
      kind: 'string',
      default: '17520h',
      description:
        'Lifetime of the self-signed CA (cert-manager renews it at two thirds, keeping its key).',
    },
    {
      name: 'certDuration',
      flag: '--cert-duration <duration>',
      kind: 'string',
      default: '2160h',
      description: 'Lifetime of the serving certificate.',
    },
    {
      name: 'renewBefore',
      flag: '--renew-before <duration>',
      kind: 'string',
      default: '720h',
      description:
        'Renew the serving certificate this long before it expires; the proxy reloads it in place.',
    },
    {
      name: 'allowPath',
      flag: '--allow-path <prefix...>',
      kind: 'list',
      default: DEFAULT_ALLOWED_PREFIXES,
      description: 'Path prefixes the proxy forwards.',
    },
    {
      name: 'upgrades',
      flag: '--no-upgrades',
      kind: 'boolean',
      default: true,
      description: 'Make the proxy refuse exec, attach, port-forward and WebSocket upgrades.',
    },
    {
      name: 'format',
      flag: '--format <format>',
      kind: 'string',
      default: 'yaml',
      choices: ['yaml', 'helm'],
      description: 'yaml: one stream to kubectl apply; helm: a chart directory (needs --output).',
    },
    {
      name: 'output',
      flag: '--output <path>',
      kind: 'string',
      description: 'File (yaml) or directory (helm) to write; yaml goes to stdout without it.',
    },
  ],
};

const kubeconfigFlags: CommandSpec = {
  name: 'kubeconfig',
  summary:
    'Mint a short-lived token for a service account (TokenRequest API) and write a kubeconfig for the exposed address.',
  options: [
    {
      name: 'serviceAccount',
      flag: '--service-account <namespace/name>',
      kind: 'string',
      required: true,
      description: 'The service account whose identity the kubeconfig carries.',
    },
    exposedServerFlag,
    {
      name: 'caFile',
      flag: '--ca-file <file>',
      kind: 'string',
      description: "PEM CA of the exposed address's certificate, embedded in the kubeconfig.",
    },
    {
      name: 'caSecret',
      flag: '--ca-secret <namespace/name>',
      kind: 'string',
      description:
        "Read that CA from the ca.crt key of this Secret instead (the proxy's cert-manager Certificate, e.g. kfx-system/kfx-expose-api-tls).",
    },
    {
      name: 'audience',
      flag: '--audience <audience...>',
      kind: 'list',
      description: "Audiences of the token. Default: the apiserver's own (--api-audiences).",
    },
    {
      name: 'expiration',
      flag: '--expiration <seconds>',
      kind: 'integer',
      default: 3600,
      description: 'Requested token lifetime (at least 600; the apiserver may cap it).',
    },
    {
      name: 'pod',
      flag: '--pod <name>',
      kind: 'string',
      description:
        "Bind the token to this Pod (in the service account's namespace): it stops working when the Pod is deleted.",
    },
    {
      name: 'output',
      flag: '--output <file>',
      kind: 'string',
      description:
        'Write the kubeconfig here (mode 0600, replaced atomically) instead of printing it.',
    },
    {
      name: 'tokenFile',
      flag: '--token-file <file>',
      kind: 'string',
      description:
        'Write the token to this file (mode 0600) and have the kubeconfig refer to it: running the command again refreshes the token under running clients.',
    },
    {
      name: 'kubeconfig',
      flag: '--kubeconfig <file>',
      kind: 'string',
      description:
        'Credentials used to mint the token (needs create on serviceaccounts/token). Default: KUBECONFIG, ~/.kube/config, in-cluster.',
    },
    contextFlag,
  ],
};

const envFlags: CommandSpec = {
  name: 'env',
  summary:
    'Print the KUBERNETES_SERVICE_HOST/PORT variables and CA of the exposed address for a virtual-kubelet (interLink kubernetesApiAddr/Port/CaCrt).',
  options: [
    exposedServerFlag,
    {
      name: 'caFile',
      flag: '--ca-file <file>',
      kind: 'string',
      description: "PEM CA of the exposed address's certificate.",
    },
    {
      name: 'caSecret',
      flag: '--ca-secret <namespace/name>',
      kind: 'string',
      description:
        'Read the CA from the ca.crt key of this Secret (e.g. kfx-system/kfx-expose-api-tls).',
    },
    {
      name: 'format',
      flag: '--format <format>',
      kind: 'string',
      default: 'env',
      choices: ['env', 'virtual-kubelet', 'helm-values', 'json'],
      description:
        'env: shell variables; virtual-kubelet: KubernetesApiAddr/Port/CaCrt; helm-values: interlink.kubernetesApi* values; json: everything.',
    },
    {
      name: 'kubeconfig',
      flag: '--kubeconfig <file>',
      kind: 'string',
      description: 'Credentials to read --ca-secret with.',
    },
    contextFlag,
  ],
};

const checkFlags: CommandSpec = {
  name: 'check',
  summary:
    'From outside the cluster, verify TLS to the exposed address, authenticate with a token, and list what the identity may do.',
  options: [
    {
      name: 'server',
      flag: '--server <url>',
      kind: 'string',
      description: 'The exposed address. Default: the server of --kubeconfig.',
    },
    {
      name: 'caFile',
      flag: '--ca-file <file>',
      kind: 'string',
      description:
        "PEM CA clients are given. Default: the kubeconfig's CA, else the system trust store.",
    },
    {
      name: 'tokenFile',
      flag: '--token-file <file>',
      kind: 'string',
      description: 'File holding the bearer token to check.',
    },
    {
      name: 'token',
      flag: '--token <token>',
      kind: 'string',
      description:
        'The bearer token itself (prefer --token-file: command lines are visible to other users).',
    },
    {
      name: 'kubeconfig',
      flag: '--kubeconfig <file>',
      kind: 'string',
      description:
        'Take server, CA and token from this kubeconfig (e.g. one written by kfx expose-api kubeconfig).',
    },
    contextFlag,
    {
      name: 'namespace',
      flag: '--namespace <namespace>',
      kind: 'string',
      description:
        "Namespace whose permissions are listed. Default: the token's service-account namespace, the kubeconfig's, else default.",
    },
    {
      name: 'timeout',
      flag: '--timeout <seconds>',
      kind: 'integer',
      default: 10,
      description: 'Limit for each network step.',
    },
  ],
};

/** The subcommands in the order the CLI lists them. */
export const EXPOSE_API_COMMANDS: readonly CommandSpec[] = [
  serveFlags,
  manifestsFlags,
  kubeconfigFlags,
  envFlags,
  checkFlags,
];

/** `--tls-cert <file>` → `--tls-cert`. */
export function flagName(spec: FlagSpec): string {
  return spec.flag.split(/[ <[]/)[0] ?? spec.flag;
}

/** Options of the library that a flag of another shape feeds. */
const CONVERTED: Record<string, Record<string, string>> = {
  serve: { host: 'listen', port: 'listen', metrics: 'metricsListen' },
};

/**
 * The flag that sets a library option (`metrics.port` → `--metrics-listen`): the command's own,
 * else the flag of that option in another command (check's report may say to render the manifests
 * with `externalAddress`); undefined when no flag sets it.
 */
export function flagOf(command: CommandSpec, option: string): string | undefined {
  const top = option.split(/[.[]/)[0] ?? option;
  const key = CONVERTED[command.name]?.[top] ?? top;
  const spec =
    command.options.find((o) => o.name === key) ??
    EXPOSE_API_COMMANDS.flatMap((c) => c.options).find((o) => o.name === top);
  return spec ? flagName(spec) : undefined;
}

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

/**
 * The library function's options from the flags' values; what only the CLI reads (listen
 * addresses) is converted here, and a value it cannot read is a problem naming its flag.
 */
export function toLibraryOptions(
  command: CommandSpec,
  values: Record<string, unknown>,
): { options: Record<string, unknown>; problems: string[] } {
  const options: Record<string, unknown> = { ...values };
  const problems: string[] = [];
  if (command.name !== 'serve') return { options, problems };
  const { listen, metricsListen } = values;
  delete options.listen;
  delete options.metricsListen;
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
  return { options, problems };
}
