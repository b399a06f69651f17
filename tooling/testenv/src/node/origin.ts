// A test origin: one HTTP server on the same port of several addresses (127.0.0.1, where squid
// forwards, and the node's bridge address, where pods reach it directly), recording who asked
// for what. Whether a pod went through the proxy is then plain: the origin saw the pod's IP
// (direct) or 127.0.0.1 (through squid, whose log has the pod's IP).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OriginHit {
  /** Who connected: a pod IP (direct) or 127.0.0.1 (the proxy). */
  from: string;
  path: string;
}

export interface Origin {
  port: number;
  hits: OriginHit[];
  close(): Promise<void>;
}

export async function startOrigin(
  addresses: readonly string[],
  body = 'hello from the origin\n',
): Promise<Origin> {
  const hits: OriginHit[] = [];
  const servers: Server[] = [];
  const listen = (host: string, port: number) =>
    new Promise<Server>((resolve, reject) => {
      const server = createServer((request, response) => {
        hits.push({ from: request.socket.remoteAddress ?? '', path: request.url ?? '' });
        response.end(body);
      });
      server.once('error', reject);
      server.listen(port, host, () => {
        resolve(server);
      });
    });
  const [first, ...rest] = addresses;
  if (!first) throw new Error('startOrigin: give at least one address');
  const close = () =>
    Promise.all(
      servers.map(
        (s) =>
          new Promise<void>((resolve) =>
            s.close(() => {
              resolve();
            }),
          ),
      ),
    ).then(() => undefined);
  for (let attempt = 0; ; attempt++) {
    servers.length = 0;
    servers.push(await listen(first, 0));
    const port = (servers[0]?.address() as AddressInfo).port;
    try {
      for (const host of rest) servers.push(await listen(host, port));
      return { port, hits, close };
    } catch (error) {
      // That port is taken on another address: try another one.
      await close();
      if (attempt >= 10) throw error;
    }
  }
}
