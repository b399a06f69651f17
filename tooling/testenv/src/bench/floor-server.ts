// Benchmark process: the transport floor. The same Node TLS + HTTP/2 (HTTP/1.1 fallback) server
// the admission server uses, reading the body and answering a fixed AdmissionReview: what any
// webhook on Node pays before doing any work. Prints its port as JSON.
import { serveTls } from './tls-server.ts';

const answer = JSON.stringify({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  response: { uid: '00000000-0000-0000-0000-000000000000', allowed: true },
});
serveTls((request, response) => {
  request.on('data', () => undefined);
  request.on('end', () => {
    response.writeHead(200, {
      'content-type': 'application/json',
      'content-length': answer.length,
    });
    response.end(answer);
  });
});
