// Development and test TLS for a webhook: a fresh CA and a serving certificate written as files
// named like a cert-manager Secret (tls.crt, tls.key, ca.crt): the result is the server's `tls`
// option as it is (certFile, keyFile), and its caCert a webhook configuration's caBundle. Not for production: use cert-manager.
import { createCertificateAuthority } from '@kfx/dev-certs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface DevCertificateOptions {
  /** DNS names the serving certificate is valid for. Default `['localhost']`. */
  dnsNames?: readonly string[];
  /** IP addresses the serving certificate is valid for. Default `['127.0.0.1', '::1']`. */
  ipAddresses?: readonly string[];
  /** Default `kfx-webhook`. */
  commonName?: string;
  /** Default 365. */
  validityDays?: number;
}

/** Fits `createAdmissionServer`'s `tls` option as it is: `{ tls: await writeDevCertificates(dir) }`. */
export interface DevCertificates {
  certFile: string;
  keyFile: string;
  caFile: string;
  /** The serving certificate and key as PEM strings (named so the object stays a TlsFiles). */
  certPem: string;
  keyPem: string;
  /** The CA certificate as PEM, for a caBundle or a client's `ca`. */
  caCert: string;
  /** Issues another serving certificate from the same CA (e.g. to test a rotation). */
  issue(options?: DevCertificateOptions): { cert: string; key: string };
}

/** Writes `tls.crt`, `tls.key` (mode 0600) and `ca.crt` into `dir` (created if missing). */
export async function writeDevCertificates(
  dir: string,
  options: DevCertificateOptions = {},
): Promise<DevCertificates> {
  const ca = createCertificateAuthority({ commonName: 'kfx webhook development CA' });
  const issue = (opts: DevCertificateOptions = options) =>
    ca.issue({
      commonName: opts.commonName ?? 'kfx-webhook',
      dnsNames: opts.dnsNames ?? ['localhost'],
      ipAddresses: opts.ipAddresses ?? ['127.0.0.1', '::1'],
      validityDays: opts.validityDays ?? 365,
    });
  const serving = issue();
  await mkdir(dir, { recursive: true });
  const files = {
    certFile: join(dir, 'tls.crt'),
    keyFile: join(dir, 'tls.key'),
    caFile: join(dir, 'ca.crt'),
  };
  await writeFile(files.certFile, serving.cert);
  await writeFile(files.keyFile, serving.key, { mode: 0o600 });
  await writeFile(files.caFile, ca.cert);
  return { ...files, certPem: serving.cert, keyPem: serving.key, caCert: ca.cert, issue };
}
