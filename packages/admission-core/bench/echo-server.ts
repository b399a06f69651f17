// Benchmark process: the least a correct webhook can do, by hand: parse the review, echo its uid,
// allow with the fixed patch given in PATCH (base64; the benchmark's Pods all need the same one).
// A Pod named echo-probe is refused, so the benchmark can tell when the apiserver calls it. The
// end-to-end benchmark runs it to show what part of a webhook's cost is the apiserver's own
// (encoding the review, the call, applying the patch). Prints its port.
import { readFileSync } from 'node:fs';
import { createSecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';

const patch = process.env.PATCH;
const server = createSecureServer({
  cert: readFileSync(process.env.CERT_FILE ?? ''),
  key: readFileSync(process.env.KEY_FILE ?? ''),
  allowHTTP1: true,
});
server.on('request', (request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const review = JSON.parse(Buffer.concat(chunks).toString()) as {
      request: { uid: string; name?: string };
    };
    const { uid, name } = review.request;
    const verdict =
      name === 'echo-probe'
        ? { allowed: false, status: { code: 403, message: 'probe' } }
        : { allowed: true, ...(patch ? { patchType: 'JSONPatch', patch } : {}) };
    const answer = JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: { uid, ...verdict },
    });
    response.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(answer),
    });
    response.end(answer);
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
