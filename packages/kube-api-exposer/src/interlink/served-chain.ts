// The certificate chain an address serves, as a client sees it in the TLS handshake (leaf first,
// then what the server sent with it), trusting nothing: `check` judges it against interLink's
// copy of the CA afterwards.
import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import tls from 'node:tls';

/** A certificate as the handshake gives it: Node's type says every one has an issuer; the last sent may have none. */
interface Link {
  raw?: Buffer;
  fingerprint256?: string;
  issuerCertificate?: Link;
}

export function servedChain(
  host: string,
  port: number,
  timeoutMs: number,
): Promise<X509Certificate[]> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      host,
      port,
      ...(isIP(host) === 0 ? { servername: host } : {}),
      rejectUnauthorized: false,
      ALPNProtocols: ['http/1.1'],
    });
    socket.setTimeout(timeoutMs, () => {
      socket.destroy(new Error(`no TLS handshake within ${String(timeoutMs / 1000)} s`));
    });
    socket.once('error', reject);
    socket.once('secureConnect', () => {
      const chain: X509Certificate[] = [];
      let current: Link | undefined = socket.getPeerCertificate(true);
      const seen = new Set<string>();
      while (current?.raw !== undefined && !seen.has(current.fingerprint256 ?? '')) {
        seen.add(current.fingerprint256 ?? '');
        chain.push(new X509Certificate(current.raw));
        current = current.issuerCertificate;
      }
      socket.destroy();
      resolve(chain);
    });
  });
}
