// The certificates of self-managed TLS: each serving certificate comes with a CA of its own, made
// together and valid as long; the CA's key is thrown away at once, so nothing, not even a copy
// of the Secret, can sign another certificate the webhook configuration would trust. A rotation
// is a new CA in the caBundle beside the old one, then the new certificate served.
import { X509Certificate } from 'node:crypto';
import { createCertificateAuthority } from '@kfx/dev-certs';
import type { SelfManagedTls } from '../tls-config.js';

/** A serving certificate and its key, as PEM, with the certificate parsed. */
export interface ServingPair {
  cert: string;
  key: string;
  certificate: X509Certificate;
}

/** A new serving pair and the CA that signed it (the CA as PEM; its key is gone). */
export interface Issued {
  pair: ServingPair;
  ca: X509Certificate;
}

const DAY_MS = 86_400_000;

/** Makes a CA and a serving certificate for the configured names, both valid durationDays. */
export function issueServingPair(
  settings: Pick<SelfManagedTls, 'dnsNames' | 'ipAddresses' | 'durationDays'>,
  now: Date,
): Issued {
  const commonName = settings.dnsNames[0] ?? settings.ipAddresses[0] ?? 'kfx-webhook';
  const authority = createCertificateAuthority({
    commonName: `kfx-webhook CA ${now.toISOString()}`,
    validityDays: settings.durationDays,
  });
  const issued = authority.issue({
    commonName,
    dnsNames: settings.dnsNames,
    ipAddresses: settings.ipAddresses,
    validityDays: settings.durationDays,
  });
  return {
    pair: { ...issued, certificate: new X509Certificate(issued.cert) },
    ca: new X509Certificate(authority.cert),
  };
}

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** Every certificate of a PEM bundle; throws naming `source` when one does not parse. */
export function parseBundle(pem: string, source: string): X509Certificate[] {
  return (pem.match(PEM_BLOCK) ?? []).map((block, index) => {
    try {
      return new X509Certificate(block);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new Error(`${source}: certificate ${index + 1} does not parse: ${why}`, {
        cause: error,
      });
    }
  });
}

/** The bundle as PEM, each certificate once (by fingerprint), in order. */
export function bundlePem(cas: readonly X509Certificate[]): string {
  const seen = new Set<string>();
  return cas
    .filter((ca) => !seen.has(ca.fingerprint256) && seen.add(ca.fingerprint256))
    .map((ca) => ca.toString())
    .join('');
}

/** Whether `ca` signed `certificate`. */
export function signedBy(certificate: X509Certificate, ca: X509Certificate): boolean {
  return certificate.checkIssued(ca) && certificate.verify(ca.publicKey);
}

export const notAfter = (certificate: X509Certificate): number => Date.parse(certificate.validTo);

/** The configured names the certificate is not valid for, as they are written. */
export function missingNames(
  certificate: X509Certificate,
  settings: Pick<SelfManagedTls, 'dnsNames' | 'ipAddresses'>,
): string[] {
  return [
    ...settings.dnsNames.filter((name) => certificate.checkHost(name) === undefined),
    ...settings.ipAddresses.filter((ip) => certificate.checkIP(ip) === undefined),
  ];
}

/** When a certificate valid until `end` is due for renewal. */
export const renewAt = (end: number, renewBeforeDays: number): number =>
  end - renewBeforeDays * DAY_MS;
