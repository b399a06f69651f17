// Lets pods on the node reach the test apiserver, which listens on 127.0.0.1 only: a TCP
// forwarder on the node's bridge address (TLS passes through untouched; the apiserver's
// certificate names that address). Pods use it through KUBERNETES_SERVICE_HOST/PORT set to it,
// since no kube-proxy makes the `kubernetes` Service's cluster IP reachable.
import { connect, createServer, type Socket } from 'node:net';

export interface ApiForwarder {
  host: string;
  port: number;
  close(): Promise<void>;
}

const NODE_API_PORT = 6443;

export async function startApiForwarder(host: string, targetPort: number): Promise<ApiForwarder> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(NODE_API_PORT, host, resolve);
  });
  return {
    host,
    port: NODE_API_PORT,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => {
          resolve();
        });
      }),
  };
}
