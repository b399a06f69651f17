// exec, attach, port-forward and WebSocket watches: HTTP/1.1 Upgrade requests (SPDY/3.1 or
// websocket). Each takes a place under the caps of long-running requests (429 when there is
// none), for the identity of a token the apiserver has accepted (proven-tokens.ts: a forged one
// is refused 401 before it takes anything). The request goes to the apiserver on a connection of
// its own; on 101 the two sockets are joined byte for byte, otherwise the apiserver's refusal is
// passed back as it is, the place given back at once and the connection closed both ways: a
// refused client never keeps what it took.
import type { ClientRequest, IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { checkPath } from '../path-allow-list.js';
import { logAccess } from './access-log.js';
import type { ConnectionLimits } from './connection-limits.js';
import { headerLines, requestHeadersFor, responseHeadersFor } from './headers.js';
import { requestCredential } from './credential.js';
import { callerIdentity, type CallerIdentity } from './identity.js';
import type { LongRunningLimits } from './long-running.js';
import type { ProxyMetrics } from './metrics.js';
import type { ProvenTokens } from './proven-tokens.js';
import type { Door } from '../door/door.js';
import { hasBody, POD_TOKEN_IN_SUBPROTOCOL } from './forward.js';
import { closeAfterWriting, writeStatusToSocket, type ProxyStatus } from './status-response.js';
import { upstreamFailure } from './upstream-errors.js';
import type { UpstreamPool } from './upstream-pool.js';

export interface UpgradeDeps {
  pool: UpstreamPool;
  metrics: ProxyMetrics;
  logger: Logger;
  allowedPrefixes: readonly string[];
  upgrades: boolean;
  idleTimeoutMs: number;
  longRunning: LongRunningLimits;
  connections: ConnectionLimits;
  tokens: ProvenTokens;
  door: Door;
}

/** What one upgrade exchange has done so far; logged when the caller's socket closes. */
interface Exchange {
  started: number;
  status: number;
  bytes: number;
  bytesIn: number;
  failure: string | undefined;
  tunnelOpen: boolean;
  /** The apiserver answered (101 or a refusal): later errors can only close the socket. */
  answered: boolean;
  upstream: ClientRequest | undefined;
  upstreamSocket: Duplex | undefined;
  /** Gives back the place under the caps of long-running requests and the in-flight mark. */
  release?: (() => void) | undefined;
  /** The caller's socket closed: nothing more is started for it. */
  closed: boolean;
}

export function forwardUpgrade(
  deps: UpgradeDeps,
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): void {
  const { metrics } = deps;
  const method = request.method ?? 'GET';
  const url = request.url ?? '/';
  const path = url.split('?')[0] ?? url;
  const exchange: Exchange = {
    started: performance.now(),
    status: 0,
    bytes: 0,
    bytesIn: 0,
    failure: undefined,
    tunnelOpen: false,
    answered: false,
    upstream: undefined,
    upstreamSocket: undefined,
    closed: false,
  };
  const connection = deps.connections.of(request.socket);
  const requestDone = deps.connections.begin(connection);
  socket.once('close', () => {
    exchange.closed = true;
    exchange.release?.();
    requestDone();
    exchange.upstreamSocket?.destroy();
    exchange.upstream?.destroy();
    if (exchange.tunnelOpen) metrics.activeStreams.dec({ kind: 'upgrade' });
    metrics.requests.inc({
      code: exchange.status === 0 ? 'error' : String(exchange.status),
      method,
    });
    logAccess(deps.logger, {
      method,
      path: url,
      status: exchange.status,
      bytes: exchange.bytes,
      bytesIn: exchange.bytesIn,
      durationMs: performance.now() - exchange.started,
      userAgent: request.headers['user-agent'],
      remoteAddress: request.socket.remoteAddress,
      kind: `upgrade:${request.headers.upgrade ?? ''}`,
      error: exchange.failure,
    });
  });
  socket.on('error', (error) => {
    exchange.failure ??= `the caller's connection broke: ${error.message}`;
  });
  // An upgraded connection that moves no byte for this long is closed, as a plain one is.
  // Node types the upgraded socket as a Duplex; on an https server it is a TLSSocket.
  (socket as Socket).setTimeout(deps.idleTimeoutMs, () => {
    exchange.failure ??= `no data moved for ${deps.idleTimeoutMs / 1000} s (idle timeout)`;
    socket.destroy();
  });

  const decision = checkPath(url, deps.allowedPrefixes);
  if (!decision.allowed) {
    refuse(deps, exchange, socket, method, {
      code: 403,
      message: `${path} is not exposed: ${decision.reason}`,
    });
    return;
  }
  if (!deps.upgrades) {
    refuse(deps, exchange, socket, method, {
      code: 403,
      message: `protocol upgrades (exec, attach, port-forward, WebSocket) are disabled on this proxy; refused to upgrade ${path} to "${request.headers.upgrade ?? ''}"`,
    });
    return;
  }
  // No exec, attach, port-forward or WebSocket handshake has a body. One announced would hold
  // its long-running place while the apiserver waited for it, even with a forged token.
  if (hasBody(request)) {
    refuse(deps, exchange, socket, method, {
      code: 400,
      message: `an upgrade request has no body; refused to upgrade ${path} with one`,
    });
    return;
  }
  const credential = requestCredential(request);
  if (credential.refused !== undefined) {
    refuse(deps, exchange, socket, method, { code: 400, message: credential.refused });
    return;
  }
  const open = (token: string | undefined, identity: CallerIdentity) => {
    const place = deps.longRunning.tryAcquire(identity);
    if (place.refused !== undefined) {
      metrics.longRunningRefused.inc({ limit: place.refused.limit });
      refuse(deps, exchange, socket, method, place.refused.status);
      return;
    }
    exchange.release = () => {
      place.release();
      requestDone();
    };
    const swapped = token === credential.token ? undefined : token;
    exchange.upstream = openTunnel(deps, exchange, request, socket, head, swapped);
    exchange.upstream.once('upgrade', () => {
      // The apiserver accepted the token: the tunnel counts for its identity. Tunnels are few
      // (maxLongRunningPerIdentity), so one past maxConnectionsPerIdentity is kept.
      if (connection !== undefined && !identity.anonymous)
        deps.connections.authenticate(connection, identity.key, true);
    });
    exchange.upstream.once('response', (response) => {
      if (token !== undefined) deps.tokens.answered(token, response.statusCode ?? 502, method);
    });
  };
  /** The identity of `token` proved (or the refusal), then the tunnel. */
  const identifyAndOpen = (token: string | undefined) => {
    if (token === undefined) {
      open(undefined, callerIdentity(undefined));
      return;
    }
    void deps.tokens.identify(token).then((check) => {
      if (exchange.closed) return;
      if (check.refused !== undefined) refuse(deps, exchange, socket, method, check.refused);
      else open(token, check.identity);
    });
  };
  const jwt = credential.token === undefined ? undefined : deps.door.concerns(credential.token);
  if (jwt === undefined) {
    identifyAndOpen(credential.token);
    return;
  }
  if (credential.inSubprotocol) {
    refuse(deps, exchange, socket, method, { code: 400, message: POD_TOKEN_IN_SUBPROTOCOL });
    return;
  }
  void deps.door.admit(jwt, request.socket.remoteAddress).then((admission) => {
    if (exchange.closed) return;
    if (admission.refused !== undefined) {
      refuse(deps, exchange, socket, method, admission.refused);
      return;
    }
    deps.tokens.vouch(admission.token);
    identifyAndOpen(admission.token);
  });
}

function refuse(
  deps: UpgradeDeps,
  exchange: Exchange,
  socket: Duplex,
  method: string,
  answer: ProxyStatus,
): void {
  exchange.status = answer.code;
  exchange.failure = answer.message;
  deps.metrics.duration.observe({ method }, (performance.now() - exchange.started) / 1000);
  writeStatusToSocket(socket, answer);
}

function openTunnel(
  deps: UpgradeDeps,
  exchange: Exchange,
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  token: string | undefined,
): ClientRequest {
  const { pool, metrics } = deps;
  const method = request.method ?? 'GET';
  const observeHead = () => {
    exchange.answered = true;
    metrics.duration.observe({ method }, (performance.now() - exchange.started) / 1000);
  };
  const upstream = https.request({
    ...pool.connectionOptions(),
    agent: false,
    method,
    path: `${pool.prefix}${request.url ?? '/'}`,
    headers: requestHeadersFor(request.rawHeaders, request.headers, {
      remoteAddress: request.socket.remoteAddress,
      upstreamHost: pool.host,
      upgrade: true,
      token,
    }),
    setHost: false,
  });
  upstream.on('upgrade', (response, upSocket, upHead) => {
    observeHead();
    exchange.upstreamSocket = upSocket;
    exchange.status = response.statusCode ?? 101;
    if (socket.destroyed) {
      upSocket.destroy();
      return;
    }
    exchange.tunnelOpen = true;
    metrics.activeStreams.inc({ kind: 'upgrade' });
    const headers = responseHeadersFor(response.rawHeaders, response.headers, { upgrade: true });
    socket.write(
      `HTTP/1.1 ${exchange.status} ${response.statusMessage ?? 'Switching Protocols'}\r\n${headerLines(headers)}\r\n`,
    );
    if (upHead.length > 0) socket.write(upHead);
    if (head.length > 0) upSocket.write(head);
    upSocket.on('data', (chunk: Buffer) => (exchange.bytes += chunk.length));
    socket.on('data', (chunk: Buffer) => (exchange.bytesIn += chunk.length));
    upSocket.on('error', (error) => {
      exchange.failure ??= `the upstream connection broke: ${error.message}`;
    });
    upSocket.once('close', () => socket.destroy());
    upSocket.pipe(socket);
    socket.pipe(upSocket);
  });
  upstream.on('response', (response) => {
    // The apiserver refused the upgrade (401, 403, 400 "pod does not exist", …): pass that on,
    // give back the place now, and close the connection once the body is out.
    observeHead();
    exchange.release?.();
    exchange.status = response.statusCode ?? 502;
    closeAfterWriting(socket);
    const headers = responseHeadersFor(response.rawHeaders, response.headers);
    socket.write(
      `HTTP/1.1 ${exchange.status} ${response.statusMessage ?? ''}\r\n${headerLines(headers)}Connection: close\r\n\r\n`,
    );
    response.on('data', (chunk: Buffer) => (exchange.bytes += chunk.length));
    response.pipe(socket);
  });
  upstream.on('error', (error) => {
    if (socket.destroyed) return;
    if (exchange.answered) {
      exchange.failure ??= `the upstream connection broke: ${error.message}`;
      socket.destroy();
      return;
    }
    refuse(deps, exchange, socket, method, upstreamFailure(error, pool.url));
  });
  upstream.end();
  return upstream;
}
