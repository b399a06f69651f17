// Writing answers on either HTTP/1.1 or HTTP/2 (the compatibility API gives both the same
// shape). Refusals are metav1.Status objects, which the apiserver turns into a readable error.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';

export type AnyRequest = IncomingMessage | Http2ServerRequest;
export type AnyResponse = ServerResponse | Http2ServerResponse;

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  408: 'Timeout',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
};

export interface AnswerOptions {
  /** HTTP/1.1 only: close the connection after this answer (unread body, or shutting down). */
  close?: boolean;
  headers?: Record<string, string>;
}

/** Answers longer than this many characters are written piece by piece, as the client reads. */
const PIECE = 64 * 1024;

/** The next cut at or before `end` that does not split a UTF-16 surrogate pair. */
function cut(text: string, end: number): number {
  if (end >= text.length) return text.length;
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

export function send(
  request: AnyRequest,
  response: AnyResponse,
  status: number,
  contentType: string,
  body: string,
  options: AnswerOptions = {},
): void {
  if (response.headersSent || response.destroyed) return;
  // The two response classes share these methods but not a declared type.
  const out = response as ServerResponse;
  const headers: Record<string, string | number> = {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    ...options.headers,
  };
  // HTTP/2 forbids the Connection header; streams end on their own.
  if (options.close && request.httpVersionMajor === 1) headers.connection = 'close';
  // A body refused unread is still on its way: take and drop it, so that the client can finish
  // sending and read the answer (rather than meet a reset, or hold an HTTP/2 stream open).
  if (options.close) request.resume();
  out.writeHead(status, headers);
  // A large answer handed over in one piece is copied whole into native memory and buffered in
  // the TLS layer of each slow connection, outside the V8 heap: with a hundred connections that
  // ran to hundreds of MiB. Written piece by piece on 'drain', a connection holds a piece or two.
  let offset = 0;
  const next = () => {
    while (body.length - offset > PIECE) {
      const end = cut(body, offset + PIECE);
      const piece = body.slice(offset, end);
      offset = end;
      if (!out.write(piece)) {
        out.once('drain', next);
        return;
      }
    }
    out.end(offset === 0 ? body : body.slice(offset));
  };
  next();
}

export function sendJson(request: AnyRequest, response: AnyResponse, body: string, close = false) {
  send(request, response, 200, 'application/json', body, { close });
}

/** Refuses a request with a Kubernetes Status object naming what is wrong. */
export function sendStatus(
  request: AnyRequest,
  response: AnyResponse,
  code: number,
  message: string,
  options: AnswerOptions = {},
): void {
  const status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason: REASONS[code] ?? 'Unknown',
    code,
  };
  send(request, response, code, 'application/json', JSON.stringify(status), options);
}
