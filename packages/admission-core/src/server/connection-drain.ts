// Graceful close for an HTTP/2 + HTTP/1.1 TLS server: stop accepting, let every request that has
// started finish, then close the connections; only a drain that overruns its deadline is cut.
import type { Http2SecureServer } from 'node:http2';
import type { Socket } from 'node:net';

export interface ConnectionDrain {
  /** True once close() has begun: HTTP/1.1 answers then carry `Connection: close`. */
  readonly draining: boolean;
  /** Resolves when every connection has closed, or after `timeoutMs` (then they are cut). */
  close(timeoutMs: number): Promise<{ forced: number }>;
}

export function trackConnections(server: Http2SecureServer): ConnectionDrain {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  let draining = false;
  let closing: Promise<{ forced: number }> | undefined;
  return {
    get draining() {
      return draining;
    },
    close(timeoutMs) {
      draining = true;
      closing ??= new Promise((resolve) => {
        // Node's close() stops listening, sends GOAWAY on each HTTP/2 session (whose open
        // streams still complete) and ends idle HTTP/1.1 connections; busy ones end after
        // their answer, which says `Connection: close`.
        const timer = setTimeout(() => {
          const forced = sockets.size;
          for (const socket of sockets) socket.destroy();
          resolve({ forced });
        }, timeoutMs);
        server.close(() => {
          clearTimeout(timer);
          resolve({ forced: 0 });
        });
      });
      return closing;
    },
  };
}
