// One HTTP exchange on node:http(s): send, wait for the response head, and turn every way that
// can fail (refused, reset, timeout, abort) into a KubeApiError that names the request.
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { KubeApiError } from './errors.js';
import { ListStreamError, ListStreamParser } from './list-stream.js';

export interface SendOptions {
  server: URL;
  agent: http.Agent;
  method: string;
  /** Path and query, relative to the server URL (which may have a path prefix). */
  path: string;
  headers: Record<string, string>;
  body?: string | undefined;
  signal?: AbortSignal | undefined;
  /** Limit for the response head; `readBody` keeps counting against it. */
  timeoutMs: number;
}

export interface Sent {
  response: IncomingMessage;
  /** Milliseconds left of the timeout when the head arrived. */
  deadline: number;
}

/** Connection errors that prove the request never reached the server. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

export function wasNotSent(error: unknown): boolean {
  return error instanceof KubeApiError && error.code !== undefined && NOT_SENT.has(error.code);
}

export function send(options: SendOptions): Promise<Sent> {
  const { server, agent, method, path, headers, body, signal, timeoutMs } = options;
  const prefix = server.pathname.replace(/\/$/, '');
  const deadline = Date.now() + timeoutMs;
  return new Promise<Sent>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const transportError = (reason: 'ConnectionFailed' | 'Timeout', error: Error) =>
      new KubeApiError({
        method,
        path,
        status: 0,
        reason,
        message: `${server.origin}: ${error.message}`,
        code: (error as NodeJS.ErrnoException).code,
        cause: error,
      });
    const requestHeaders: Record<string, string> = { ...headers };
    if (body !== undefined) requestHeaders['Content-Length'] = String(Buffer.byteLength(body));
    const request = (server.protocol === 'https:' ? https.request : http.request)({
      protocol: server.protocol,
      hostname: server.hostname.replace(/^\[|\]$/g, ''),
      port: server.port || (server.protocol === 'https:' ? 443 : 80),
      path: `${prefix}${path}`,
      method,
      headers: requestHeaders,
      agent,
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      request.destroy(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const onAbort = () => request.destroy(signal?.reason as Error);
    signal?.addEventListener('abort', onAbort, { once: true });
    const cleanup = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    request.on('response', (response) => {
      cleanup();
      // Aborting after the head must still end the body stream.
      if (signal) {
        const abortBody = () => response.destroy(signal.reason as Error);
        signal.addEventListener('abort', abortBody, { once: true });
        response.once('close', () => {
          signal.removeEventListener('abort', abortBody);
        });
      }
      resolve({ response, deadline });
    });
    request.on('error', (error) => {
      cleanup();
      if (signal?.aborted) reject(signal.reason as Error);
      else reject(transportError(timedOut ? 'Timeout' : 'ConnectionFailed', error));
    });
    request.end(body);
  });
}

/** Reads a response body to the end, within what is left of the request's timeout. */
export function readBody(sent: Sent, method: string, path: string): Promise<string> {
  const chunks: Buffer[] = [];
  return consumeBody(sent, method, path, {
    data: (chunk) => chunks.push(chunk),
    end: () => Buffer.concat(chunks).toString('utf8'),
  });
}

/**
 * Reads a list answer as it arrives, handing each item to `onItem` (list-stream.ts), within what
 * is left of the request's timeout; returns the list's other top-level fields.
 */
export function readList(
  sent: Sent,
  method: string,
  path: string,
  onItem: (item: unknown) => void,
): Promise<Record<string, unknown>> {
  const parser = new ListStreamParser(onItem);
  return consumeBody(sent, method, path, {
    data: (chunk) => {
      parser.write(chunk);
    },
    end: () => parser.end(),
  });
}

function consumeBody<T>(
  sent: Sent,
  method: string,
  path: string,
  sink: { data: (chunk: Buffer) => void; end: () => T },
): Promise<T> {
  const { response, deadline } = sent;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => response.destroy(new Error('the response body did not arrive in time')),
      Math.max(0, deadline - Date.now()),
    );
    const fail = (error: Error) => {
      clearTimeout(timer);
      response.destroy();
      reject(error);
    };
    /** What the sink threw: an answer that is not a list is the server's fault; the rest, ours. */
    const sinkFailed = (error: unknown) => {
      if (!(error instanceof ListStreamError)) {
        fail(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      fail(
        new KubeApiError({
          method,
          path,
          status: response.statusCode ?? 0,
          reason: 'BadResponse',
          message: error.message,
        }),
      );
    };
    response.on('data', (chunk: Buffer) => {
      try {
        sink.data(chunk);
      } catch (error) {
        sinkFailed(error);
      }
    });
    response.on('end', () => {
      clearTimeout(timer);
      try {
        resolve(sink.end());
      } catch (error) {
        sinkFailed(error);
      }
    });
    response.on('error', (error) => {
      fail(
        new KubeApiError({
          method,
          path,
          status: 0,
          reason: 'ConnectionFailed',
          message: `reading the response: ${error.message}`,
          cause: error,
        }),
      );
    });
  });
}
