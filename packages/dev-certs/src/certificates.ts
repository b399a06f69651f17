// X.509 certificates for local clusters, tests and development webhooks: a CA, serving
// certificates with IP and DNS SANs, client certificates with organizations (Kubernetes reads
// O= as groups, so O=system:masters makes a cluster admin). ECDSA P-256: fast to generate.
import {
  createHash,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  type KeyObject,
} from 'node:crypto';
import { isIP } from 'node:net';
import {
  bitString,
  boolean,
  explicit,
  implicit,
  octetString,
  oid,
  sequence,
  set,
  smallInteger,
  time,
  unsignedInteger,
  utf8String,
  type Der,
} from './der.js';

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

const DAY_MS = 86_400_000;

export interface CertificateAndKey {
  /** PEM certificate. */
  cert: string;
  /** PEM private key (PKCS#8). */
  key: string;
}

export interface IssueOptions {
  commonName: string;
  /** Subject O= entries; Kubernetes maps them to groups. */
  organizations?: readonly string[];
  /** DNS names for the subjectAltName. */
  dnsNames?: readonly string[];
  /** IPv4/IPv6 addresses for the subjectAltName. */
  ipAddresses?: readonly string[];
  /** What the certificate is for. Default `server`. */
  usage?: 'server' | 'client' | 'server-and-client';
  /** Validity in days from now. Default 365. */
  validityDays?: number;
}

export interface CertificateAuthority extends CertificateAndKey {
  issue(options: IssueOptions): CertificateAndKey;
}

export interface CaOptions {
  commonName?: string;
  /** Validity in days from now. Default 3650. */
  validityDays?: number;
}

function name(commonName: string, organizations: readonly string[] = []): Der {
  const rdn = (type: string, value: string) => set(sequence(oid(type), utf8String(value)));
  return sequence(
    ...organizations.map((o) => rdn(OID.organization, o)),
    rdn(OID.commonName, commonName),
  );
}

function extension(id: string, critical: boolean, value: Der): Der {
  return sequence(oid(id), ...(critical ? [boolean(true)] : []), octetString(value));
}

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  if (isIP(ip) !== 6) throw new Error(`dev-certs: ${JSON.stringify(ip)} is not an IP address`);
  const [head = '', tail = ''] = ip.split('::');
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const h = groups(head);
  const t = groups(tail);
  const all = ip.includes('::')
    ? [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t]
    : h;
  return Buffer.from(all.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 0xff]));
}

function spki(publicKey: KeyObject): Buffer {
  return publicKey.export({ type: 'spki', format: 'der' });
}

/** Key identifier per RFC 5280 §4.2.1.2 method 1: SHA-1 of the subjectPublicKey bits. */
function keyId(publicKey: KeyObject): Buffer {
  const der = spki(publicKey);
  // For P-256 the uncompressed point is the last 65 bytes of the SPKI.
  return createHash('sha1')
    .update(der.subarray(der.length - 65))
    .digest();
}

interface Signer {
  subject: Der;
  key: KeyObject;
  keyId: Buffer;
}

function buildCertificate(
  subject: Der,
  publicKey: KeyObject,
  issuer: Signer | 'self',
  signingKey: KeyObject,
  validityDays: number,
  extensions: Der[],
): string {
  const signer = issuer === 'self' ? { subject, keyId: keyId(publicKey) } : issuer;
  const algorithm = sequence(oid(OID.ecdsaWithSha256));
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f;
  const notBefore = new Date(Date.now() - 5 * 60_000); // tolerate small clock skew
  const notAfter = new Date(Date.now() + validityDays * DAY_MS);
  const tbs = sequence(
    explicit(0, smallInteger(2)), // v3
    unsignedInteger(serial),
    algorithm,
    signer.subject,
    sequence(time(notBefore), time(notAfter)),
    subject,
    spki(publicKey),
    explicit(
      3,
      sequence(
        ...extensions,
        extension(OID.subjectKeyIdentifier, false, octetString(keyId(publicKey))),
        extension(OID.authorityKeyIdentifier, false, sequence(implicit(0, signer.keyId))),
      ),
    ),
  );
  const signature = sign('sha256', tbs, signingKey); // DER ECDSA-Sig-Value, as X.509 wants
  const der = sequence(tbs, algorithm, bitString(signature));
  const body = der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .trimEnd();
  return `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`;
}

function newKey(): { privateKey: KeyObject; publicKey: KeyObject; pem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    privateKey,
    publicKey,
    pem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

/** Creates a self-signed CA that can issue serving and client certificates. */
export function createCertificateAuthority(options: CaOptions = {}): CertificateAuthority {
  const { commonName = 'kfx development CA', validityDays = 3650 } = options;
  const { privateKey, publicKey, pem } = newKey();
  const subject = name(commonName);
  const caExtensions = [
    extension(OID.basicConstraints, true, sequence(boolean(true))),
    // keyCertSign | cRLSign | digitalSignature
    extension(OID.keyUsage, true, bitString(Buffer.from([0x86]), 1)),
  ];
  const cert = buildCertificate(subject, publicKey, 'self', privateKey, validityDays, caExtensions);
  const signer: Signer = { subject, key: privateKey, keyId: keyId(publicKey) };
  return {
    cert,
    key: pem,
    issue: (opts) => issue(signer, opts),
  };
}

function issue(signer: Signer, options: IssueOptions): CertificateAndKey {
  const { commonName, organizations = [], dnsNames = [], ipAddresses = [] } = options;
  const { usage = 'server', validityDays = 365 } = options;
  const leaf = newKey();
  const purposes = {
    server: [OID.serverAuth],
    client: [OID.clientAuth],
    'server-and-client': [OID.serverAuth, OID.clientAuth],
  }[usage];
  const extensions = [
    extension(OID.basicConstraints, true, sequence()),
    extension(OID.keyUsage, true, bitString(Buffer.from([0x80]), 7)), // digitalSignature
    extension(OID.extKeyUsage, false, sequence(...purposes.map(oid))),
  ];
  const altNames = [
    ...dnsNames.map((d) => implicit(2, Buffer.from(d, 'ascii'))),
    ...ipAddresses.map((ip) => implicit(7, ipBytes(ip))),
  ];
  if (altNames.length > 0)
    extensions.push(extension(OID.subjectAltName, false, sequence(...altNames)));
  const cert = buildCertificate(
    name(commonName, organizations),
    leaf.publicKey,
    signer,
    signer.key,
    validityDays,
    extensions,
  );
  return { cert, key: leaf.pem };
}

/** The public half of a PEM private key, as PEM (e.g. a service-account verification key). */
export function publicKeyPem(privateKeyPem: string): string {
  return createPublicKey(privateKeyPem).export({ type: 'spki', format: 'pem' }).toString();
}

/** A fresh ECDSA P-256 private key as PEM (e.g. a service-account signing key). */
export function generatePrivateKeyPem(): string {
  return newKey().pem;
}
