// The remote node's kubelet endpoint, for logs only: an HTTPS server where the Node's
// InternalIP and kubelet port say, answering the apiserver's `GET /containerLogs/<namespace>/
// <pod>/<container>` (`kubectl logs`, with `follow`, `tailLines`, `timestamps`) from the
// container's CRI log file. As a kubelet does, it asks for a client certificate from the
// cluster's CA (the apiserver presents its kubelet client certificate); its own certificate is
// self-signed, which the apiserver accepts unless told to verify kubelets.
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createCertificateAuthority } from '@kfx/dev-certs';
import { parseCriLog, renderLog } from './cri-log.js';

export interface ContainerLog {
  file: string;
  /** False once the container has exited (a follow then ends). */
  running(): boolean;
}

export type FindLog = (
  namespace: string,
  pod: string,
  container: string,
) => ContainerLog | undefined;

export interface LogsServer {
  port: number;
  close(): Promise<void>;
}

const FOLLOW_POLL_MS = 250;

/**
 * The log files being followed now, so that a Pod's files are removed only once every follower
 * has read its last lines (a deleted Pod's SIGTERM handler writes some).
 */
export class LogFollowers {
  readonly #files = new Map<string, number>();
  readonly #waiters = new Set<() => void>();

  /** A follow of `file` began; call the result when it ends. */
  begin(file: string): () => void {
    this.#files.set(file, (this.#files.get(file) ?? 0) + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const left = (this.#files.get(file) ?? 1) - 1;
      if (left === 0) this.#files.delete(file);
      else this.#files.set(file, left);
      for (const wake of this.#waiters) wake();
    };
  }

  /** Resolves once no file under `folder` is followed, or after `timeoutMs`. */
  async drained(folder: string, timeoutMs: number): Promise<void> {
    const busy = () => [...this.#files.keys()].some((file) => file.startsWith(`${folder}/`));
    const deadline = Date.now() + timeoutMs;
    while (busy() && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.#waiters.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, Math.max(0, deadline - Date.now()));
        this.#waiters.add(wake);
      });
    }
  }
}

export async function startLogsServer(options: {
  address: string;
  /** PEM of the CA whose client certificates it accepts (the cluster's). */
  clientCa: string;
  find: FindLog;
  followers: LogFollowers;
}): Promise<LogsServer> {
  const serving = createCertificateAuthority({ commonName: 'kfx-remote-node' }).issue({
    commonName: 'kfx-remote-node',
    ipAddresses: [options.address],
  });
  const server: Server = createServer(
    {
      cert: serving.cert,
      key: serving.key,
      ca: options.clientCa,
      requestCert: true,
      rejectUnauthorized: true,
    },
    (request, response) => {
      const url = new URL(request.url ?? '/', 'https://remote-node');
      const match = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
      const parts = match?.slice(1).map(decodeURIComponent) ?? [];
      const log = match ? options.find(parts[0] ?? '', parts[1] ?? '', parts[2] ?? '') : undefined;
      if (request.method !== 'GET' || !log || !existsSync(log.file)) {
        response.writeHead(404, { 'content-type': 'text/plain' });
        response.end(
          match
            ? `no log for ${parts.join('/')}\n`
            : 'the remote node serves container logs only\n',
        );
        return;
      }
      const tail = url.searchParams.get('tailLines');
      const view = {
        tailLines: tail === null ? undefined : Number(tail),
        timestamps: url.searchParams.get('timestamps') === 'true',
      };
      const read = () => readFileSync(log.file, 'utf8');
      let content = read();
      response.writeHead(200, { 'content-type': 'text/plain' });
      // Only whole lines are shown; a line being written comes with the next read.
      let shown = content.lastIndexOf('\n') + 1;
      response.write(renderLog(parseCriLog(content.slice(0, shown)), view));
      if (url.searchParams.get('follow') !== 'true') {
        response.end();
        return;
      }
      const followed = options.followers.begin(log.file);
      const stop = () => {
        clearInterval(timer);
        followed();
      };
      const timer = setInterval(() => {
        const ended = !log.running();
        try {
          content = read();
        } catch {
          // The Pod's folder is gone: nothing more will come.
          stop();
          response.end();
          return;
        }
        const upTo = content.lastIndexOf('\n') + 1;
        if (upTo > shown) {
          response.write(
            renderLog(parseCriLog(content.slice(shown, upTo)), { timestamps: view.timestamps }),
          );
          shown = upTo;
        }
        if (ended) {
          stop();
          response.end();
        }
      }, FOLLOW_POLL_MS);
      request.on('close', stop);
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, options.address, () => {
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
