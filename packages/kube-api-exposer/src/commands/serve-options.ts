// The options of `kfx expose-api serve`: their description for the CLI and their validation.
import { z } from 'zod';
import { DEFAULT_ALLOWED_PREFIXES } from '../path-allow-list.js';
import type { CommandSpec } from './option-spec.js';
import {
  count,
  listenAddress,
  notBoth,
  optionalListenAddress,
  pathPrefix,
  seconds,
} from './values.js';

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
        'Requests without a body that only read (GET, HEAD, OPTIONS) in flight at once; more get 429 with Retry-After. Watches do not count.',
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

export const serveSchema = z
  .strictObject({
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
    requestBodyTimeout: seconds(1, 3600).default(60),
    maxRequestsInflight: count(1, 1_000_000).default(400),
    maxMutatingRequestsInflight: count(1, 1_000_000).default(200),
    maxConnections: count(1, 1_000_000).default(500),
    metricsListen: optionalListenAddress.prefault('0.0.0.0:9090'),
    tlsReloadInterval: seconds(1, 3600).default(10),
    shutdownGrace: seconds(0, 3600).default(10),
    logLevel: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  })
  .refine(...notBoth('upstream', 'kubeconfig'))
  .refine((o) => o.context === undefined || o.kubeconfig !== undefined, {
    message: 'a context of which kubeconfig? give --kubeconfig too',
    path: ['context'],
  });
