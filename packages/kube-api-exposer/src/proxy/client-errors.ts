// Requests that never become requests: unparsable bytes, oversized headers, headers that arrive
// too slowly, CONNECT. Each gets a short Status answer when the socket can still take one, is
// logged once, and its socket is closed so that nothing stays allocated for it.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { ProxyMetrics } from './metrics.js';
import { writeStatusToSocket, type ProxyStatus } from './status-response.js';

export interface ClientErrorLimits {
  maxHeaderBytes: number;
  headersTimeoutMs: number;
}

function clientErrorStatus(error: Error, limits: ClientErrorLimits): ProxyStatus | undefined {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  if (code === 'ECONNRESET' || code === 'EPIPE') return undefined;
  if (code === 'HPE_HEADER_OVERFLOW') {
    return { code: 431, message: `the request headers exceed ${limits.maxHeaderBytes} bytes` };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return {
      code: 408,
      message: `the request headers did not arrive within ${limits.headersTimeoutMs / 1000} s`,
    };
  }
  return { code: 400, message: `malformed HTTP request (${code || error.message})` };
}

export function handleClientError(
  logger: Logger,
  metrics: ProxyMetrics,
  limits: ClientErrorLimits,
  error: Error,
  socket: Duplex,
): void {
  const status = clientErrorStatus(error, limits);
  const remoteAddress = (socket as Duplex & { remoteAddress?: string }).remoteAddress;
  if (status === undefined) {
    socket.destroy();
    return;
  }
  metrics.requests.inc({ code: String(status.code), method: 'unknown' });
  logger.warn(
    { remoteAddress, status: status.code, code: (error as NodeJS.ErrnoException).code },
    status.message,
  );
  writeStatusToSocket(socket, status);
  // A client that does not read the answer must not hold the socket.
  setTimeout(() => socket.destroy(), 1000).unref();
}

/** CONNECT would turn the proxy into a general tunnel: refused. */
export function refuseConnect(
  logger: Logger,
  metrics: ProxyMetrics,
  request: IncomingMessage,
  socket: Duplex,
): void {
  metrics.requests.inc({ code: '405', method: 'CONNECT' });
  logger.warn(
    { remoteAddress: request.socket.remoteAddress, target: request.url },
    'CONNECT refused',
  );
  writeStatusToSocket(socket, {
    code: 405,
    message: 'CONNECT is not supported: this proxy forwards Kubernetes API requests only',
  });
}
