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
  500: 'InternalError',
  503: 'ServiceUnavailable',
};

export interface AnswerOptions {
  /** HTTP/1.1 only: close the connection after this answer (unread body, or shutting down). */
  close?: boolean;
  headers?: Record<string, string>;
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
  const headers: Record<string, string | number> = {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    ...options.headers,
  };
  // HTTP/2 forbids the Connection header; streams end on their own.
  if (options.close && request.httpVersionMajor === 1) headers.connection = 'close';
  // The two response classes share this signature but not a declared type.
  (response as ServerResponse).writeHead(status, headers);
  (response as ServerResponse).end(body);
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
