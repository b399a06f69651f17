// Readiness: can the proxy reach the apiserver, and does its certificate verify with the CA
// the proxy trusts? A TLS handshake answers both without any credential.
import { isIP } from 'node:net';
import tls from 'node:tls';
import type { UpstreamPool } from './upstream-pool.js';

export function probeUpstream(pool: UpstreamPool): Promise<{ ok: boolean; reasons: string[] }> {
  return new Promise((resolve) => {
    const target = pool.connectionOptions();
    const host = target.hostname ?? '';
    const servername = target.servername ?? (isIP(host) === 0 ? host : undefined);
    const socket = tls.connect({
      host,
      port: Number(target.port ?? 443),
      ...(target.ca === undefined ? {} : { ca: target.ca }),
      ...(servername === undefined ? {} : { servername }),
      ALPNProtocols: ['http/1.1'],
      timeout: 2000,
    });
    const done = (ok: boolean, reason?: string) => {
      socket.destroy();
      resolve({ ok, reasons: reason === undefined ? [] : [reason] });
    };
    socket.once('secureConnect', () => {
      done(true);
    });
    socket.once('timeout', () => {
      done(false, `no TLS handshake with ${pool.url.origin} within 2 s`);
    });
    socket.once('error', (error: Error) => {
      done(false, `upstream ${pool.url.origin}: ${error.message}`);
    });
  });
}
