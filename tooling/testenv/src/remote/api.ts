// The remote node's own API calls: raw JSON over HTTPS with the test bed's admin credentials, so
// that objects stay as the wire has them (timestamps as strings, a Lease's MicroTime, which the
// typed client would rewrite), and a watch is a plain stream of JSON lines.
import { request, type RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

/** A call the apiserver does not answer fails instead of holding a Pod's handling forever. */
const REQUEST_TIMEOUT_MS = 30_000;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: Record<string, unknown>;
}

interface Watching {
  /** Resolves when the server ends the watch or it fails (the caller lists again). */
  ended: Promise<void>;
  stop(): void;
}

export interface Api {
  /** A request; resolves with the parsed answer, rejects with ApiError on a status ≥ 300. */
  call<T = Record<string, unknown>>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    contentType?: string,
  ): Promise<T>;
  watch(path: string, onEvent: (event: WatchEvent) => void): Watching;
}

export async function apiClient(kubeConfig: KubeConfig): Promise<Api> {
  const server = kubeConfig.getCurrentCluster()?.server;
  if (!server) throw new Error('the kubeconfig names no cluster server');
  const tls: RequestOptions = {};
  await kubeConfig.applyToHTTPSOptions(tls);
  const url = (path: string) => new URL(path, server);
  const options = (method: string, headers: Record<string, string>): RequestOptions => ({
    ...tls,
    method,
    headers: { accept: 'application/json', ...headers },
    agent: false,
  });

  return {
    call(method, path, body, contentType = 'application/json') {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      return new Promise((resolve, reject) => {
        const req = request(
          url(path),
          // A length always: Node sends a DELETE's body without one, which the server ignores.
          options(
            method,
            payload === undefined
              ? {}
              : {
                  'content-type': contentType,
                  'content-length': String(Buffer.byteLength(payload)),
                },
          ),
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              const status = res.statusCode ?? 0;
              let parsed: unknown;
              try {
                parsed = JSON.parse(text || '{}');
              } catch {
                parsed = undefined;
              }
              if (status >= 300 || parsed === undefined) {
                const message = (parsed as { message?: string } | undefined)?.message ?? text;
                reject(new ApiError(status, `${method} ${path}: ${status} ${message}`));
                return;
              }
              resolve(parsed as never);
            });
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.setTimeout(REQUEST_TIMEOUT_MS, () => {
          req.destroy(new Error(`${method} ${path}: no answer in ${REQUEST_TIMEOUT_MS} ms`));
        });
        req.end(payload);
      });
    },

    watch(path, onEvent) {
      let abort: (() => void) | undefined;
      const ended = new Promise<void>((resolve) => {
        const req = request(url(path), options('GET', {}), (res) => {
          if (res.statusCode !== 200) {
            res.resume();
            resolve();
            return;
          }
          let rest = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            const lines = (rest + chunk).split('\n');
            rest = lines.pop() ?? '';
            for (const line of lines.filter(Boolean)) onEvent(JSON.parse(line) as WatchEvent);
          });
          res.on('end', resolve);
          res.on('error', () => {
            resolve();
          });
          res.on('close', resolve);
        });
        req.on('error', () => {
          resolve();
        });
        req.end();
        abort = () => req.destroy();
      });
      return {
        ended,
        stop: () => {
          abort?.();
        },
      };
    },
  };
}
