// Benchmark process: the transport floor. The same Node TLS + HTTP/2 (HTTP/1.1 fallback) server
// the admission server uses, reading the body and answering a fixed AdmissionReview: what any
// webhook on Node pays before doing any work. Prints its port as JSON.
import { readFileSync } from 'node:fs';
import { createSecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';

const answer = JSON.stringify({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  response: { uid: '00000000-0000-0000-0000-000000000000', allowed: true },
});
const server = createSecureServer({
  cert: readFileSync(process.env.CERT_FILE ?? ''),
  key: readFileSync(process.env.KEY_FILE ?? ''),
  allowHTTP1: true,
  minVersion: 'TLSv1.2',
});
server.on('request', (request, response) => {
  request.on('data', () => undefined);
  request.on('end', () => {
    response.writeHead(200, {
      'content-type': 'application/json',
      'content-length': answer.length,
    });
    response.end(answer);
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
