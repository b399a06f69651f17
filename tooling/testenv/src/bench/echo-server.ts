// Benchmark process: the least a correct webhook can do, by hand: parse the review, echo its uid
// (the apiserver refuses an answer with another one), allow with the fixed patch given in PATCH
// (base64; the benchmark's Pods all need the same one). The same TLS + HTTP/2 server as the floor
// (floor-server.ts), plus JSON.parse of the body and JSON.stringify of the answer: no webhook that
// reads the review can cost less. A Pod named echo-probe is refused, so the end-to-end benchmark
// can tell when the apiserver calls it; it runs it to show what part of a webhook's cost is the
// apiserver's own (encoding the review, the call, applying the patch). Prints its port as JSON.
import { serveTls } from './tls-server.ts';

const patch = process.env.PATCH;
serveTls((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    let review: { request: { uid: string; name?: string } };
    try {
      review = JSON.parse(Buffer.concat(chunks).toString()) as typeof review;
    } catch {
      // A body cut short: a load generator stopping mid-request at the end of its run.
      response.writeHead(400);
      response.end();
      return;
    }
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
