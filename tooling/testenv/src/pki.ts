// The certificates and keys of one control plane, written as files its components read.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createCertificateAuthority,
  generatePrivateKeyPem,
  publicKeyPem,
  type CertificateAndKey,
  type CertificateAuthority,
} from '@kfx/dev-certs';

/** The apiserver's own Service IP: the first address of the service CIDR. */
export const SERVICE_CIDR = '10.0.0.0/24';
export const API_SERVICE_IP = '10.0.0.1';

export interface ControlPlanePki {
  ca: CertificateAuthority;
  admin: CertificateAndKey;
  files: {
    caCert: string;
    caKey: string;
    servingCert: string;
    servingKey: string;
    adminCert: string;
    adminKey: string;
    serviceAccountKey: string;
    serviceAccountPub: string;
  };
}

/** The service-account signing key's file in a plane's folder. */
export const SERVICE_ACCOUNT_KEY_FILE = 'sa.key';

/** `extraIps`: more addresses the apiserver is reached at (a real node's bridge address). */
export function writePki(dir: string, extraIps: readonly string[] = []): ControlPlanePki {
  const ca = createCertificateAuthority({ commonName: 'kfx testenv CA' });
  const serving = ca.issue({
    commonName: 'kube-apiserver',
    dnsNames: [
      'localhost',
      'kubernetes',
      'kubernetes.default',
      'kubernetes.default.svc',
      'kubernetes.default.svc.cluster.local',
    ],
    ipAddresses: ['127.0.0.1', API_SERVICE_IP, ...extraIps],
  });
  // One identity for tests, the controller-manager, the scheduler and kwok; also what the
  // apiserver presents to kwok's kubelet endpoint for logs.
  const admin = ca.issue({
    commonName: 'kfx-testenv-admin',
    organizations: ['system:masters'],
    usage: 'client',
  });
  const saKey = generatePrivateKeyPem();
  const files = {
    caCert: join(dir, 'ca.crt'),
    caKey: join(dir, 'ca.key'),
    servingCert: join(dir, 'apiserver.crt'),
    servingKey: join(dir, 'apiserver.key'),
    adminCert: join(dir, 'admin.crt'),
    adminKey: join(dir, 'admin.key'),
    serviceAccountKey: join(dir, SERVICE_ACCOUNT_KEY_FILE),
    serviceAccountPub: join(dir, 'sa.pub'),
  };
  const write = (path: string, pem: string) => {
    writeFileSync(path, pem, { mode: 0o600 });
  };
  write(files.caCert, ca.cert);
  write(files.caKey, ca.key);
  write(files.servingCert, serving.cert);
  write(files.servingKey, serving.key);
  write(files.adminCert, admin.cert);
  write(files.adminKey, admin.key);
  write(files.serviceAccountKey, saKey);
  write(files.serviceAccountPub, publicKeyPem(saKey));
  return { ca, admin, files };
}
