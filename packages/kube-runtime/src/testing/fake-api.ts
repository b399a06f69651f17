// A scriptable HTTP stand-in for the API server, for the faults a real one cannot produce on
// demand (429 storms, a watch that goes silent, a 410 at a chosen moment). Everything else is
// tested against a real control plane.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { pino, type Logger } from 'pino';

type Route = (request: IncomingMessage, response: ServerResponse, url: URL) => void;

export interface FakeApi {
  url: string;
  kubeConfig: KubeConfig;
  /** Every request seen, as `METHOD path?query`. */
  requests: string[];
  handle(route: Route): void;
  close(): Promise<void>;
}

export async function startFakeApi(): Promise<FakeApi> {
  let route: Route = (_request, response) => {
    response.writeHead(404).end();
  };
  const requests: string[] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    requests.push(`${request.method ?? ''} ${url.pathname}${url.search}`);
    route(request, response, url);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'fake', server: url, skipTLSVerify: true }],
    users: [{ name: 'fake', token: 'fake-token' }],
    contexts: [{ name: 'fake', cluster: 'fake', user: 'fake' }],
    currentContext: 'fake',
  });
  return {
    url,
    kubeConfig,
    requests,
    handle(next) {
      route = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

export function json(response: ServerResponse, status: number, body: unknown, headers = {}): void {
  response.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

export function status(code: number, reason: string, message: string): object {
  return { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message };
}

/** A pino logger that keeps its records, to check what was decided (e.g. a retry delay). */
export function recordingLogger(): { logger: Logger; records: Record<string, unknown>[] } {
  const records: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'debug' },
    {
      write(line: string) {
        records.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  );
  return { logger, records };
}
