// Minimal HTTPS clients for tests and benchmarks, over HTTP/1.1 and HTTP/2, that report what the
// server answered (status, headers, body, the certificate it presented) instead of throwing.
import { connect, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import { request, type Agent } from 'node:https';
import { TLSSocket } from 'node:tls';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** Serial number of the server certificate (HTTP/1.1 only). */
  serial?: string;
}

export interface H1Options {
  ca: string;
  method?: string;
  headers?: Record<string, string | number>;
  agent?: Agent | false;
  /** Send the body in pieces, waiting this long between them. */
  trickleMs?: number;
  /** Write the body with chunked encoding instead of a content-length. */
  chunked?: boolean;
  minVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
  maxVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
}

export function postH1(
  port: number,
  path: string,
  body: string | Buffer,
  options: H1Options,
): Promise<Answer> {
  const { trickleMs, chunked = false } = options;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'POST',
        ca: options.ca,
        agent: options.agent ?? false,
        ...(options.minVersion ? { minVersion: options.minVersion } : {}),
        ...(options.maxVersion ? { maxVersion: options.maxVersion } : {}),
        headers: {
          'content-type': 'application/json',
          ...(chunked || trickleMs !== undefined
            ? {}
            : { 'content-length': Buffer.byteLength(body) }),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        const { socket } = res;
        const serial =
          socket instanceof TLSSocket ? socket.getPeerCertificate().serialNumber : undefined;
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString();
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            ...(serial ? { serial } : {}),
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (trickleMs === undefined) {
      req.end(body);
      return;
    }
    const bytes = Buffer.from(body);
    let offset = 0;
    const next = () => {
      if (req.destroyed) return;
      if (offset >= bytes.length) {
        req.end();
        return;
      }
      req.write(bytes.subarray(offset, offset + 16));
      offset += 16;
      setTimeout(next, trickleMs);
    };
    next();
  });
}

/** `localAddress`: where the connection comes from, e.g. another loopback address (127.0.0.2). */
export function h2Session(
  port: number,
  ca: string,
  options: { localAddress?: string } = {},
): Promise<ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = connect(`https://127.0.0.1:${port}`, { ca, ...options });
    session.once('connect', () => {
      session.off('error', reject);
      resolve(session);
    });
    session.once('error', reject);
  });
}

export function postH2(
  session: ClientHttp2Session,
  path: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/json',
      ...headers,
    });
    const chunks: Buffer[] = [];
    let status = 0;
    let answerHeaders: Answer['headers'] = {};
    stream.on('response', (h) => {
      status = Number(h[':status']);
      answerHeaders = h;
    });
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      resolve({ status, headers: answerHeaders, body: Buffer.concat(chunks).toString() });
    });
    stream.on('error', reject);
    stream.end(body);
  });
}

/**
 * Sends a POST on `session` and never reads the answer: the stream is paused, so HTTP/2 flow
 * control stops the server once the session's receive window (64 KiB) is full, and the rest of
 * every answer on the session waits in the server. What a client that wants to hold a server's
 * memory does. Resolves with the stream once the request is sent; closing the session ends it.
 */
export function postH2Unread(
  session: ClientHttp2Session,
  path: string,
  body: string | Buffer,
): Promise<ClientHttp2Stream> {
  return new Promise((resolve, reject) => {
    const stream = session.request({
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/json',
    });
    stream.pause();
    stream.once('error', reject);
    stream.end(body, () => {
      stream.off('error', reject);
      stream.on('error', () => undefined); // the server may reset it: that is the point
      resolve(stream);
    });
  });
}
