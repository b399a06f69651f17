// Answers the proxy gives itself (path refused, upstream unreachable, bad request) as Kubernetes
// Status objects, so kubectl and client-go print the message instead of "unknown error".
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  405: 'MethodNotAllowed',
  408: 'Timeout',
  429: 'TooManyRequests',
  431: 'RequestHeaderFieldsTooLarge',
  502: 'BadGateway',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

export interface ProxyStatus {
  code: number;
  message: string;
  /** Seconds a client should wait before retrying (503 while the apiserver restarts). */
  retryAfterSeconds?: number;
}

/** Every answer of the proxy's own names the proxy, so nobody blames the apiserver for it. */
const PROXY_NAME = 'kfx-expose-api';

function statusBody(status: ProxyStatus): string {
  return JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `${PROXY_NAME}: ${status.message}`,
    reason: REASONS[status.code] ?? 'Unknown',
    code: status.code,
    ...(status.retryAfterSeconds === undefined
      ? {}
      : { details: { retryAfterSeconds: status.retryAfterSeconds } }),
  });
}

/**
 * Answers on a request's response. `close` ends the connection after the answer, for a request
 * whose body has not all arrived: its rest is not waited for.
 */
export function sendStatus(
  response: ServerResponse,
  status: ProxyStatus,
  options: { close?: boolean } = {},
): void {
  const body = statusBody(status);
  response.writeHead(status.code, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    ...(status.retryAfterSeconds === undefined
      ? {}
      : { 'Retry-After': String(status.retryAfterSeconds) }),
    ...(options.close ? { Connection: 'close' } : {}),
  });
  response.end(response.req.method === 'HEAD' ? undefined : body);
}

/**
 * The same answer written on a raw socket (upgrade requests, parse errors), then closed, both
 * ways: a client that keeps its side open must not keep the connection (closeAfterWriting).
 */
export function writeStatusToSocket(socket: Duplex, status: ProxyStatus): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = statusBody(status);
  const retry =
    status.retryAfterSeconds === undefined ? '' : `Retry-After: ${status.retryAfterSeconds}\r\n`;
  closeAfterWriting(socket);
  socket.end(
    `HTTP/1.1 ${status.code} ${STATUS_CODES[status.code] ?? 'Error'}\r\n` +
      'Content-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      retry +
      'Connection: close\r\n\r\n' +
      body,
  );
}

/**
 * Destroys `socket` once everything written to it has gone out. Ending it alone half-closes
 * it: the server keeps its side (and what the connection counts for) until the client closes.
 */
export function closeAfterWriting(socket: Duplex): void {
  if (socket.writableFinished) socket.destroy();
  else socket.once('finish', () => socket.destroy());
}
