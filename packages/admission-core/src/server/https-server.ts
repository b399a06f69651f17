// The HTTPS listener: Node's HTTP/2 server with HTTP/1.1 fallback (the apiserver may speak
// either), with the deadlines that keep slow or idle clients from holding connections.
import { createSecureServer, type Http2SecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import { messageOf } from '@kfx/kube-runtime/serving';
import type { AnyRequest, AnyResponse } from './http-answers.js';
import { TLS_SETTINGS, type ServingContext } from './serving-tls.js';

export interface HttpsServerOptions {
  bodyTimeoutMs: number;
  log: Logger;
  /** Open connections at most; Infinity: no bound. */
  maxConnections: number;
  /** HTTP/2 streams per connection at most; Infinity: Node's default (2^32 - 1). */
  maxConcurrentStreams: number;
}

export function createHttpsServer(
  context: ServingContext,
  handler: (request: AnyRequest, response: AnyResponse) => void,
  options: HttpsServerOptions,
): Http2SecureServer {
  const { bodyTimeoutMs, log, maxConnections, maxConcurrentStreams } = options;
  const server = createSecureServer({
    ...TLS_SETTINGS,
    ...context,
    allowHTTP1: true,
    handshakeTimeout: 10_000,
    ...(maxConcurrentStreams === Infinity ? {} : { settings: { maxConcurrentStreams } }),
  });
  // Past it, new connections are closed as they arrive (each costs TLS and HTTP/2 buffers).
  if (maxConnections !== Infinity) server.maxConnections = maxConnections;
  // HTTP/1.1 request headers must arrive within the body deadline too (slow-header clients);
  // Node checks that deadline on this interval.
  Object.assign(server, {
    headersTimeout: bodyTimeoutMs,
    requestTimeout: bodyTimeoutMs * 2,
    connectionsCheckingInterval: Math.min(1000, bodyTimeoutMs),
  });
  server.setTimeout(120_000); // idle connections
  server.on('request', handler);
  server.on('tlsClientError', (error: Error, socket: TLSSocket) => {
    // With a client CA, a client without a certificate it signed ends here: worth a warning.
    const level = context.requestCert ? 'warn' : 'debug';
    log[level]({ err: error, remoteAddress: socket.remoteAddress }, 'TLS handshake failed');
  });
  server.on('sessionError', (error) => {
    log.debug({ err: error }, 'HTTP/2 session error');
  });
  return server;
}

export function listenError(
  option: string,
  port: number,
  host: string | undefined,
  error: unknown,
) {
  const where = `${host ?? '*'}:${port}`;
  return new Error(`cannot listen on ${where} (${option}): ${messageOf(error)}`, {
    cause: error,
  });
}

/** Resolves with the port bound (useful with port 0). */
export function listenOn(server: Http2SecureServer, port: number, host: string | undefined) {
  return new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
