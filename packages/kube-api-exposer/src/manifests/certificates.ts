// cert-manager objects for the proxy's serving certificate: the external IPs and DNS names in
// its SANs, a lifetime of weeks, renewed ahead of expiry with a new key (the proxy reloads it in
// place). Without an existing issuer, a self-signed CA is rendered too. The CA keeps its key when
// cert-manager renews it, so clients holding the previous CA certificate keep verifying the new
// serving certificates until that old CA certificate expires.
import {
  addresses,
  caSecretName,
  internalDnsNames,
  metadata,
  servingSecretName,
  type ManifestSettings,
} from './settings.js';

/** cert-manager resources have no client-node model; this is their shape as rendered. */
export interface CertManagerObject {
  apiVersion: 'cert-manager.io/v1';
  kind: 'Issuer' | 'Certificate';
  metadata: ReturnType<typeof metadata>;
  spec: Record<string, unknown>;
}

const ECDSA = { algorithm: 'ECDSA', size: 256 };

export function certificates(s: ManifestSettings): CertManagerObject[] {
  // A certificate of the user's own: nothing for cert-manager to do.
  if (s.tlsSecret !== undefined) return [];
  const objects: CertManagerObject[] = [];
  let issuerRef: Record<string, string>;
  if (s.issuer === undefined) {
    const selfSigned = `${s.name}-selfsigned`;
    objects.push(
      {
        apiVersion: 'cert-manager.io/v1',
        kind: 'Issuer',
        metadata: metadata(s, selfSigned),
        spec: { selfSigned: {} },
      },
      {
        apiVersion: 'cert-manager.io/v1',
        kind: 'Certificate',
        metadata: metadata(s, `${s.name}-ca`),
        spec: {
          isCA: true,
          commonName: `${s.name} CA`,
          secretName: caSecretName(s),
          duration: s.caDuration,
          privateKey: { ...ECDSA, rotationPolicy: 'Never' },
          issuerRef: { group: 'cert-manager.io', kind: 'Issuer', name: selfSigned },
        },
      },
      {
        apiVersion: 'cert-manager.io/v1',
        kind: 'Issuer',
        metadata: metadata(s, `${s.name}-ca`),
        spec: { ca: { secretName: caSecretName(s) } },
      },
    );
    issuerRef = { group: 'cert-manager.io', kind: 'Issuer', name: `${s.name}-ca` };
  } else {
    issuerRef = { group: 'cert-manager.io', kind: s.issuer.kind, name: s.issuer.name };
  }
  const { ipAddresses, dnsNames } = addresses(s);
  objects.push({
    apiVersion: 'cert-manager.io/v1',
    kind: 'Certificate',
    metadata: metadata(s),
    spec: {
      secretName: servingSecretName(s),
      dnsNames: [...dnsNames, ...internalDnsNames(s)],
      ...(ipAddresses.length > 0 ? { ipAddresses } : {}),
      duration: s.certDuration,
      renewBefore: s.renewBefore,
      usages: ['server auth', 'digital signature'],
      privateKey: { ...ECDSA, rotationPolicy: 'Always' },
      issuerRef,
    },
  });
  return objects;
}
