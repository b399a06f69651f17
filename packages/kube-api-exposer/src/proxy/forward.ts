// Forwards one HTTP request to the apiserver and streams the answer back as it arrives: each
// chunk of a watch or a chunked list is written to the caller when the apiserver sends it, and
// backpressure (a slow reader) pauses the upstream instead of filling memory. Each request takes
// a place under the in-flight limits, or a long-running one under the caps of long-running
// requests (429 when there is none), and has its body within the body timeout (408 otherwise);
// a connection whose request body has not all arrived when the answer is sent is closed after
// it, so nobody is waited on for a body nothing will read. The apiserver's answer tells whether
// it accepted the caller's token, which makes the connection an authenticated one; a
// long-running request has its token proved before it takes its identity's place
// (proven-tokens.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { Logger } from 'pino';
import { checkPath } from '../path-allow-list.js';
import { logAccess } from './access-log.js';
import type { ConnectionLimits } from './connection-limits.js';
import { requestHeadersFor, responseHeadersFor } from './headers.js';
import { requestCredential } from './credential.js';
import { callerIdentity, provesCredential, type CallerIdentity } from './identity.js';
import { inflightClass, type InflightLimits } from './inflight.js';
import type { LongRunningLimits } from './long-running.js';
import { streamKind, type ProxyMetrics } from './metrics.js';
import type { ProvenTokens } from './proven-tokens.js';
import type { Door } from '../door/door.js';
import type { RefusalLog } from './refusal-log.js';
import { sendStatus, type ProxyStatus } from './status-response.js';
import { isStaleConnection, upstreamFailure } from './upstream-errors.js';
import type { UpstreamPool } from './upstream-pool.js';

export interface ForwardDeps {
  pool: UpstreamPool;
  metrics: ProxyMetrics;
  logger: Logger;
  allowedPrefixes: readonly string[];
  idleTimeoutMs: number;
  /** Sockets the server closed for idleness, to log the right reason. */
  idleClosed: WeakSet<object>;
  inflight: InflightLimits;
  longRunning: LongRunningLimits;
  connections: ConnectionLimits;
  tokens: ProvenTokens;
  door: Door;
  refusals: RefusalLog;
  /** Time for a request body to arrive once the head has; 0 for no limit. */
  requestBodyTimeoutMs: number;
}

/** Why a Pod's token in a WebSocket subprotocol is refused: the door would have to rewrite it. */
export const POD_TOKEN_IN_SUBPROTOCOL =
  "a Pod's token must come in the Authorization header through this exposer, not in a WebSocket subprotocol";

/** Pooled upstream sockets already switched to no-delay (each is reused for many requests). */
const noDelaySet = new WeakSet<object>();

const RETRYABLE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether a request announces a body (a `Content-Length` other than 0, or chunks). */
export function hasBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return (
    request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
  );
}

export function forwardRequest(
  deps: ForwardDeps,
  request: IncomingMessage,
  response: ServerResponse,
): void {
  const { pool, metrics, logger } = deps;
  const started = performance.now();
  const method = request.method ?? 'GET';
  const url = request.url ?? '/';
  const kind = streamKind(url);
  let bytes = 0;
  let bytesIn = 0;
  let failure: string | undefined;
  let upstreamRequest: ReturnType<typeof https.request> | undefined;
  let upstreamDone = false;
  /** The proxy answered itself (timeout): what the upstream does next no longer matters. */
  let answered = false;
  let release: (() => void) | undefined;
  let bodyTimer: NodeJS.Timeout | undefined;
  const withBody = hasBody(request);
  /** Whether to close the connection after an answer sent now: its body is still on its way. */
  const bodyPending = () => withBody && !request.complete;
  const requestDone = deps.connections.begin(deps.connections.of(request.socket));
  let closed = false;

  metrics.activeStreams.inc({ kind });
  response.once('close', () => {
    closed = true;
    release?.();
    requestDone();
    clearTimeout(bodyTimer);
    metrics.activeStreams.dec({ kind });
    const status = response.headersSent ? response.statusCode : 0;
    if (!response.writableFinished) {
      failure ??= deps.idleClosed.has(request.socket)
        ? `no data moved for ${deps.idleTimeoutMs / 1000} s (idle timeout)`
        : 'the caller closed the connection';
      if (!upstreamDone) upstreamRequest?.destroy();
    }
    metrics.requests.inc({ code: status === 0 ? 'error' : String(status), method });
    logAccess(logger, {
      method,
      path: url,
      status,
      bytes,
      bytesIn,
      durationMs: performance.now() - started,
      userAgent: request.headers['user-agent'],
      remoteAddress: request.socket.remoteAddress,
      kind,
      error: failure,
    });
  });
  const headSent = () => {
    metrics.duration.observe({ method }, (performance.now() - started) / 1000);
  };

  const decision = checkPath(url, deps.allowedPrefixes);
  if (!decision.allowed) {
    const message = `${url.split('?')[0] ?? url} is not exposed: ${decision.reason}`;
    failure = `refused by the proxy: ${message}`;
    request.resume();
    sendStatus(response, { code: 403, message }, { close: bodyPending() });
    headSent();
    return;
  }

  const refuse = (status: ProxyStatus, close = bodyPending()) => {
    failure = `refused by the proxy: ${status.message}`;
    sendStatus(response, status, { close });
    headSent();
  };
  const credential = requestCredential(request);
  if (credential.refused !== undefined) {
    request.resume();
    refuse({ code: 400, message: credential.refused }, true);
    return;
  }
  // A Pod's token is judged by the door first; it may go on as another token.
  const jwt = credential.token === undefined ? undefined : deps.door.concerns(credential.token);
  if (jwt === undefined) {
    place(credential.token);
    return;
  }
  if (credential.inSubprotocol) {
    refuse({ code: 400, message: POD_TOKEN_IN_SUBPROTOCOL }, true);
    return;
  }
  void deps.door.admit(jwt, request.socket.remoteAddress).then((admission) => {
    if (closed) return;
    if (admission.refused !== undefined) {
      request.resume();
      refuse(admission.refused);
      return;
    }
    deps.tokens.vouch(admission.token);
    place(admission.token);
  });

  /** Takes the request's place under the in-flight or long-running limits, then forwards it. */
  function place(token: string | undefined): void {
    const inflight = inflightClass(method, kind, withBody);
    if (inflight !== undefined) {
      release = deps.inflight.tryAcquire(inflight);
      if (release === undefined) {
        refuse(deps.inflight.refusal(inflight));
        return;
      }
      forward(token);
      return;
    }
    // Long-running, so without a body: nothing arrives while the token is checked.
    const longRunning = (identity: CallerIdentity) => {
      const taken = deps.longRunning.tryAcquire(identity);
      if (taken.refused !== undefined) {
        metrics.longRunningRefused.inc({ limit: taken.refused.limit });
        refuse(taken.refused.status);
        return;
      }
      release = taken.release;
      forward(token);
    };
    if (token === undefined) {
      longRunning(callerIdentity(undefined));
      return;
    }
    void deps.tokens.identify(token).then((check) => {
      if (closed) return;
      if (check.refused !== undefined) refuse(check.refused);
      else longRunning(check.identity);
    });
  }

  function forward(token: string | undefined): void {
    if (withBody && deps.requestBodyTimeoutMs > 0) {
      bodyTimer = setTimeout(() => {
        const message = `the request body did not arrive within ${deps.requestBodyTimeoutMs / 1000} s`;
        failure = message;
        answered = true;
        upstreamRequest?.destroy();
        if (response.headersSent) {
          response.destroy();
          return;
        }
        sendStatus(response, { code: 408, message }, { close: true });
        headSent();
      }, deps.requestBodyTimeoutMs);
      request.once('end', () => {
        clearTimeout(bodyTimer);
      });
    }
    const headers = requestHeadersFor(request.rawHeaders, request.headers, {
      remoteAddress: request.socket.remoteAddress,
      upstreamHost: pool.host,
      token: token === credential.token ? undefined : token,
    });
    if (/chunked/i.test(request.headers['transfer-encoding'] ?? ''))
      headers.push('Transfer-Encoding', 'chunked');
    if (withBody) request.on('data', (chunk: Buffer) => (bytesIn += chunk.length));
    send(headers, token, !withBody && RETRYABLE_METHODS.has(method));
    request.on('error', (error) => {
      failure = `the caller's request broke: ${error.message}`;
      upstreamRequest?.destroy();
    });
  }

  function send(headers: string[], token: string | undefined, retry: boolean): void {
    const upstream = https.request({
      ...pool.connectionOptions(),
      agent: pool.agent,
      method,
      path: `${pool.prefix}${url}`,
      headers,
      setHost: false,
    });
    upstreamRequest = upstream;
    upstream.once('socket', (socket) => {
      if (!noDelaySet.has(socket)) {
        socket.setNoDelay(true);
        noDelaySet.add(socket);
      }
    });
    upstream.on('response', (upstreamResponse) => {
      if (response.destroyed || answered) {
        upstreamResponse.destroy();
        return;
      }
      const status = upstreamResponse.statusCode ?? 502;
      if (token !== undefined) deps.tokens.answered(token, status, method);
      const responseHeaders = responseHeadersFor(
        upstreamResponse.rawHeaders,
        upstreamResponse.headers,
      );
      // The apiserver answered before the whole body came (a refusal): the rest is not waited for.
      if (bodyPending()) responseHeaders.push('Connection', 'close');
      else if (!authenticated(deps, request, token, status))
        responseHeaders.push('Connection', 'close');
      response.writeHead(status, upstreamResponse.statusMessage, responseHeaders);
      // Watch clients wait for the head before the first event arrives; other heads go out
      // with the first chunk of the body, in one write.
      if (kind === 'watch') response.flushHeaders();
      headSent();
      upstreamResponse.on('data', (chunk: Buffer) => (bytes += chunk.length));
      upstreamResponse.on('end', () => (upstreamDone = true));
      upstreamResponse.on('error', (error) => {
        failure = `the upstream response broke: ${error.message}`;
        response.destroy();
      });
      upstreamResponse.pipe(response);
    });
    upstream.on('error', (error) => {
      if (response.destroyed || answered) return;
      if (retry && upstream.reusedSocket && isStaleConnection(error)) {
        // A pooled connection the apiserver had closed: ask again on a fresh one.
        send(headers, token, false);
        return;
      }
      if (response.headersSent) {
        failure = `the upstream connection broke: ${error.message}`;
        response.destroy();
        return;
      }
      const status = upstreamFailure(error, pool.url);
      failure = status.message;
      request.resume();
      sendStatus(response, status, { close: bodyPending() });
      headSent();
    });
    if (withBody) request.pipe(upstream);
    else upstream.end();
  }
}

/**
 * Counts the connection for the identity of `token` once the apiserver accepted it (a request
 * without a token proves nothing: with anonymous authentication on, it is answered too); false
 * when that identity already holds all the connections it may, and this one must close.
 */
function authenticated(
  deps: ForwardDeps,
  request: IncomingMessage,
  token: string | undefined,
  status: number,
): boolean {
  const connection = deps.connections.of(request.socket);
  if (connection === undefined || connection.identity !== undefined) return true;
  if (token === undefined || !provesCredential(status, request.method ?? 'GET')) return true;
  const identity = callerIdentity(token);
  if (deps.connections.authenticate(connection, identity.key)) return true;
  const limit = 'maxConnectionsPerIdentity';
  deps.metrics.connectionsRefused.inc({ limit });
  deps.refusals.refused(
    limit,
    { identity: identity.description, remoteAddress: request.socket.remoteAddress },
    `connection closed after its answer: the proxy's ${limit} limit is reached`,
  );
  return false;
}
