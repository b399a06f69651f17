// The proxy's Prometheus metrics, on a Registry the caller passes or one per proxy, so that two
// proxies in one process (tests, a benchmark) keep separate counts.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export type StreamKind = 'request' | 'watch' | 'upgrade';

export interface ProxyMetrics {
  registry: Registry;
  requests: Counter<'code' | 'method'>;
  duration: Histogram<'method'>;
  activeStreams: Gauge<'kind'>;
  inflightRequests: Gauge<'class'>;
  connections: Gauge;
  connectionsRefused: Counter<'limit'>;
  connectionsEvicted: Counter;
  unauthenticatedConnections: Gauge;
  longRunningRefused: Counter<'limit'>;
  credentialChecks: Counter<'result'>;
  podTokens: Counter<'decision'>;
  interlinkCaMatches: Gauge<'config'>;
  interlinkCaExpiry: Gauge<'config'>;
  tlsHandshakeTimeouts: Counter;
  tlsReloads: Counter<'result'>;
  certificateExpiry: Gauge;
}

export function createProxyMetrics(registry: Registry = new Registry()): ProxyMetrics {
  const registers = [registry];
  return {
    registry,
    requests: new Counter({
      name: 'kfx_exposer_requests_total',
      help: 'Requests by HTTP method and status code (101 for upgrades; "error" when no status was sent)',
      labelNames: ['code', 'method'],
      registers,
    }),
    duration: new Histogram({
      name: 'kfx_exposer_request_duration_seconds',
      help: 'Time from the request to the response head sent to the caller (watches and upgrades included: their head, not their life)',
      labelNames: ['method'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    activeStreams: new Gauge({
      name: 'kfx_exposer_active_streams',
      help: 'Exchanges in flight: plain requests, watches (watch=true or /watch/ paths) and upgraded connections (exec, attach, port-forward, WebSocket)',
      labelNames: ['kind'],
      registers,
    }),
    inflightRequests: new Gauge({
      name: 'kfx_exposer_inflight_requests',
      help: 'Requests holding a place under the limit of reads in flight (class="readonly", option maxRequestsInflight) or of requests that change something (class="mutating", option maxMutatingRequestsInflight)',
      labelNames: ['class'],
      registers,
    }),
    connections: new Gauge({
      name: 'kfx_exposer_connections',
      help: 'Open client connections (plain, watches and upgraded), at most the connection limit (option maxConnections)',
      registers,
    }),
    connectionsRefused: new Counter({
      name: 'kfx_exposer_connections_refused_total',
      help: 'Client connections refused by a limit, named by its option: closed as they were accepted (maxConnections, maxConnectionsPerSource, maxUnauthenticatedConnectionsPerSource, maxUnauthenticatedConnections when every unauthenticated connection has a request in flight), or after their first accepted answer (maxConnectionsPerIdentity)',
      labelNames: ['limit'],
      registers,
    }),
    connectionsEvicted: new Counter({
      name: 'kfx_exposer_connections_evicted_total',
      help: 'Unauthenticated connections without a request in flight closed, oldest first, to make room for a new connection (option maxUnauthenticatedConnections)',
      registers,
    }),
    unauthenticatedConnections: new Gauge({
      name: 'kfx_exposer_unauthenticated_connections',
      help: 'Open client connections on which the apiserver has not yet accepted a bearer token (TLS handshakes, heads still arriving, anonymous callers, refused tokens), at most option maxUnauthenticatedConnections',
      registers,
    }),
    longRunningRefused: new Counter({
      name: 'kfx_exposer_long_running_refused_total',
      help: 'Watches, followed logs and upgrades answered 429 because a limit was reached: maxLongRunning (the whole proxy) or maxLongRunningPerIdentity (one tenant namespace, user or credential)',
      labelNames: ['limit'],
      registers,
    }),
    credentialChecks: new Counter({
      name: 'kfx_exposer_credential_checks_total',
      help: 'Tokens checked with the apiserver (GET /version with the token) before a long-running request of theirs takes a place, because no answer had proved them yet: accepted, refused (401: the request is answered 401 and takes nothing) or error (answered 503)',
      labelNames: ['result'],
      registers,
    }),
    podTokens: new Counter({
      name: 'kfx_exposer_pod_tokens_total',
      help: 'Requests with a token bound to a Pod, by what the door did: exchanged (a remote Pod: forwarded with a short-lived token of the same ServiceAccount and Pod), refused_in_cluster (the Pod runs inside the cluster), refused_gone (the Pod is gone), refused_invalid (not signed by the cluster, wrong issuer or audience), error (could not check: answered 503)',
      labelNames: ['decision'],
      registers,
    }),
    interlinkCaMatches: new Gauge({
      name: 'kfx_exposer_interlink_ca_copy_matches',
      help: "1 when interLink's copy of the exposer's CA (option interlinkConfig, NAMESPACE/NAME in the label) verifies the certificate served, 0 when it does not or cannot be read: remote Pods get that copy as their ca.crt. Absent until the first check",
      labelNames: ['config'],
      registers,
    }),
    interlinkCaExpiry: new Gauge({
      name: 'kfx_exposer_interlink_ca_copy_expiry_timestamp_seconds',
      help: "When interLink's copy of the exposer's CA ends (Unix time), to alert before remote Pods fail TLS",
      labelNames: ['config'],
      registers,
    }),
    tlsHandshakeTimeouts: new Counter({
      name: 'kfx_exposer_tls_handshake_timeouts_total',
      help: 'Client connections closed because their TLS handshake did not finish in time (option handshakeTimeout)',
      registers,
    }),
    tlsReloads: new Counter({
      name: 'kfx_exposer_tls_reloads_total',
      help: 'Serving certificate and upstream CA reloads by result (ok, error)',
      labelNames: ['result'],
      registers,
    }),
    certificateExpiry: new Gauge({
      name: 'kfx_exposer_certificate_expiry_timestamp_seconds',
      help: 'When the serving certificate in use expires (Unix time), to alert on a rotation that did not happen',
      registers,
    }),
  };
}

/** Watches and followed logs stay open; they are counted apart from plain requests. */
export function streamKind(url: string): StreamKind {
  const q = url.indexOf('?');
  const path = q >= 0 ? url.slice(0, q) : url;
  const query = new URLSearchParams(q >= 0 ? url.slice(q + 1) : '');
  const watch = query.get('watch');
  if (watch === 'true' || watch === '1' || path.includes('/watch/')) return 'watch';
  if (query.get('follow') === 'true' && path.endsWith('/log')) return 'watch';
  return 'request';
}
