// GET /certificate on the HTTPS port: the certificate this very TLS session was served, as PEM.
// It is public (every client sees it in the handshake), but not every client can see the
// handshake: `kfx doctor` reaches the webhook through the API server's service proxy, which
// terminates TLS itself, and checks what the webhook serves against the caBundle the API
// server trusts. Read from the session, not from the files, so that it is what was served.
import { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import type { AnyRequest } from './http-answers.js';

export const CERTIFICATE_PATH = '/certificate';

/** The PEM of the certificate the request's TLS session was served; undefined without TLS. */
export function servedCertificatePem(request: AnyRequest): string | undefined {
  const socket = ('stream' in request ? request.stream.session?.socket : request.socket) as
    Partial<TLSSocket> | undefined;
  const certificate = socket?.getCertificate?.();
  const raw = certificate && 'raw' in certificate ? certificate.raw : undefined;
  return raw ? new X509Certificate(raw).toString() : undefined;
}
