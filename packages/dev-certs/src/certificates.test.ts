import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { connect, createServer, type TLSSocket } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { createCertificateAuthority, generatePrivateKeyPem, publicKeyPem } from './certificates.js';

describe('createCertificateAuthority', () => {
  const ca = createCertificateAuthority({ commonName: 'test CA' });

  it('makes a CA certificate that Node parses as a CA', () => {
    const x = new X509Certificate(ca.cert);
    expect(x.ca).toBe(true);
    expect(x.subject).toContain('CN=test CA');
    expect(x.verify(x.publicKey)).toBe(true);
  });

  it('issues a serving certificate with IP and DNS SANs, signed by the CA', () => {
    const leaf = ca.issue({
      commonName: 'webhook',
      dnsNames: ['kfx-webhook.kfx-system.svc'],
      ipAddresses: ['127.0.0.1', '::1', 'fd00::10'],
    });
    const x = new X509Certificate(leaf.cert);
    expect(x.ca).toBe(false);
    expect(x.verify(new X509Certificate(ca.cert).publicKey)).toBe(true);
    expect(x.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(x.checkIP('fd00::10')).toBe('fd00::10');
    expect(x.checkHost('kfx-webhook.kfx-system.svc')).toBe('kfx-webhook.kfx-system.svc');
    expect(x.checkIP('10.0.0.1')).toBeUndefined();
    expect(x.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(x.checkPrivateKey(createPrivateKey(leaf.key))).toBe(true);
  });

  it('puts organizations in the subject of client certificates (Kubernetes groups)', () => {
    const admin = ca.issue({
      commonName: 'admin',
      organizations: ['system:masters'],
      usage: 'client',
    });
    const x = new X509Certificate(admin.cert);
    expect(x.subject).toContain('O=system:masters');
    expect(x.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
  });

  it('passes a real mutual-TLS handshake verified against the CA', async () => {
    const server = ca.issue({ commonName: 'server', ipAddresses: ['127.0.0.1'] });
    const client = ca.issue({ commonName: 'alice', usage: 'client' });
    const tlsServer = createServer(
      { ...server, ca: ca.cert, requestCert: true, rejectUnauthorized: true },
      (socket: TLSSocket) => {
        const peer = socket.getPeerCertificate();
        socket.end(String(peer.subject.CN));
      },
    );
    tlsServer.listen(0, '127.0.0.1');
    await once(tlsServer, 'listening');
    const { port } = tlsServer.address() as AddressInfo;
    try {
      const socket = connect({ host: '127.0.0.1', port, ca: ca.cert, ...client });
      const [data] = (await once(socket, 'data')) as [Buffer];
      expect(data.toString()).toBe('alice');
      socket.destroy();
    } finally {
      tlsServer.close();
    }
  });
});

describe('keys', () => {
  it('derives the public half of a generated key', () => {
    const key = generatePrivateKeyPem();
    const pub = publicKeyPem(key);
    expect(createPublicKey(key).export({ format: 'pem', type: 'spki' })).toBe(pub);
  });
});
