// Prometheus text on a separate plain-HTTP port, so scraping needs no TLS client certificate
// and the metrics never share a port (or a NetworkPolicy rule) with the apiserver's calls.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';

export interface MetricsServer {
  start(port: number, host: string | undefined): Promise<number>;
  close(): Promise<void>;
}

export function createMetricsServer(registry: Registry, log: Logger): MetricsServer {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?', 1)[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response
        .writeHead(404, { 'content-type': 'text/plain' })
        .end('only GET /metrics is served here\n');
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: unknown) => {
        log.error({ err: error }, 'collecting metrics failed');
        response
          .writeHead(500, { 'content-type': 'text/plain' })
          .end('collecting metrics failed\n');
      },
    );
  });
  server.keepAliveTimeout = 65_000;
  return {
    start: (port, host) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve((server.address() as AddressInfo).port);
        });
      }),
    close: () =>
      new Promise((resolve) => {
        if (!server.listening) {
          resolve();
          return;
        }
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}
