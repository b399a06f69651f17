// The small plain-HTTP server a controller, a webhook or a proxy exposes to the kubelet and
// Prometheus: /healthz (liveness), /readyz (503 with the reasons when not ready) and /metrics
// (Prometheus text). Plain HTTP on a port of its own, so scraping needs no TLS client certificate
// and never shares a port (or a NetworkPolicy rule) with the traffic the process serves.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { defaultLogger, type Logger } from '../logger.js';
import { messageOf } from '../message-of.js';
import type { Check } from './checks.js';

export interface OpsServerOptions {
  /** 0 picks a free port (see `server.port`). */
  port: number;
  /** Default: every interface, IPv6 too where the host has it (Node's default). */
  host?: string | undefined;
  registry: Registry;
  /** Ready to do work: e.g. `informersReady([...])` (and leadership is not required). */
  readiness: () => Check | Promise<Check>;
  /** Alive; a failure makes the kubelet restart the container. Default: always ok. */
  liveness?: (() => Check | Promise<Check>) | undefined;
  logger?: Logger | undefined;
}

export interface OpsServer {
  port: number;
  /** `http://host:port` */
  url: string;
  close(): Promise<void>;
}

export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const logger = options.logger ?? defaultLogger();
  const liveness = options.liveness ?? (() => ({ ok: true, reasons: [] }));
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      logger.error({ err: error, path: request.url }, 'ops endpoint failed');
      if (!response.headersSent) send(response, 500, 'text/plain', 'internal error\n');
      else response.destroy();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://ops').pathname;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('Allow', 'GET, HEAD');
      send(response, 405, 'text/plain', 'method not allowed\n');
      return;
    }
    if (path === '/healthz' || path === '/livez') {
      sendCheck(response, await runCheck(liveness));
      return;
    }
    if (path === '/readyz') {
      sendCheck(response, await runCheck(options.readiness));
      return;
    }
    if (path === '/metrics') {
      send(response, 200, options.registry.contentType, await options.registry.metrics());
      return;
    }
    send(response, 404, 'text/plain', 'not found: try /healthz, /readyz or /metrics\n');
  }

  // Longer than the idle timeout of Prometheus's and the kubelet's connections, so they are reused.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port, address } = server.address() as AddressInfo;
  const host = options.host ?? address;
  return {
    port,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}

async function runCheck(check: () => Check | Promise<Check>): Promise<Check> {
  try {
    return await check();
  } catch (error) {
    return { ok: false, reasons: [`the check threw: ${messageOf(error)}`] };
  }
}

function sendCheck(response: ServerResponse, check: Check): void {
  const body = check.ok
    ? 'ok\n'
    : `${check.reasons.map((r) => `- ${r}`).join('\n') || '- not ok'}\n`;
  send(response, check.ok ? 200 : 503, 'text/plain; charset=utf-8', body);
}

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  response.end(response.req.method === 'HEAD' ? undefined : body);
}
