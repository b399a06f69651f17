// What the hand-written benchmark servers (the floor, the least correct webhook) share: Node's TLS
// + HTTP/2 server with HTTP/1.1 fallback, as the admission server uses it, on the TLS files the
// launcher passes in CERT_FILE and KEY_FILE; it prints its port as JSON and exits on SIGTERM.
import { readFileSync } from 'node:fs';
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo } from 'node:net';

export function serveTls(
  onRequest: (request: Http2ServerRequest, response: Http2ServerResponse) => void,
): void {
  const server = createSecureServer({
    cert: readFileSync(process.env.CERT_FILE ?? ''),
    key: readFileSync(process.env.KEY_FILE ?? ''),
    allowHTTP1: true,
    minVersion: 'TLSv1.2',
  });
  server.on('request', onRequest);
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
  });
  process.on('SIGTERM', () => process.exit(0));
}
