// A TLS-inspecting forward proxy for tests on the real node, as corporate egress proxies are:
// it answers CONNECT, then ends the client's TLS itself with a certificate for the requested
// host that its own CA signed, and answers the request (standing in for the origin). A client
// gets through only if it trusts that CA. It listens on the node's bridge address, records
// every CONNECT with the client's address, and accepts only clients of the node's subnet.
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import type { CertificateAuthority } from '@kfx/dev-certs';

interface InspectedRequest {
  /** Who connected (a pod's IP). */
  client: string;
  /** `host:port` of the CONNECT. */
  target: string;
  /** The path asked for inside the tunnel, once TLS was accepted. */
  path?: string;
}

export interface InspectingProxy {
  /** `http://<address>:<port>`, for HTTPS_PROXY. */
  url: string;
  requests: InspectedRequest[];
  close(): Promise<void>;
}

const inSubnet = (address: string, subnet: string) => {
  const [network = '', bits = '32'] = subnet.split('/');
  const toNumber = (ip: string) => ip.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
  const size = 2 ** (32 - Number(bits));
  return Math.floor(toNumber(address) / size) === Math.floor(toNumber(network) / size);
};

export async function startInspectingProxy(options: {
  address: string;
  subnet: string;
  ca: CertificateAuthority;
  body?: string;
}): Promise<InspectingProxy> {
  const requests: InspectedRequest[] = [];
  const sockets = new Set<Socket>();
  const inner = createHttpServer((request: IncomingMessage, response) => {
    const record = (request.socket as TLSSocket & { record?: InspectedRequest }).record;
    if (record) record.path = request.url ?? '';
    response.end(options.body ?? 'hello through the inspecting proxy\n');
  });
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    const client = socket.remoteAddress?.replace(/^::ffff:/, '') ?? '';
    if (!inSubnet(client, options.subnet)) {
      socket.destroy();
      return;
    }
    let head = '';
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      const target = /^CONNECT (\S+) HTTP\/1\.[01]\r\n/.exec(head)?.[1];
      if (!target) {
        socket.end('HTTP/1.1 405 Method Not Allowed\r\n\r\n');
        return;
      }
      const record: InspectedRequest = { client, target };
      requests.push(record);
      const host = target.replace(/:\d+$/, '');
      const { cert, key } = options.ca.issue({ commonName: host, dnsNames: [host] });
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      const tls = Object.assign(new TLSSocket(socket, { isServer: true, cert, key }), { record });
      tls.on('error', () => socket.destroy());
      inner.emit('connection', tls);
    };
    socket.on('data', onData);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, options.address, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.address}:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => {
          resolve();
        });
      }),
  };
}
