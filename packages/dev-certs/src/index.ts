export {
  createCertificateAuthority,
  generatePrivateKeyPem,
  publicKeyPem,
  type CaOptions,
  type CertificateAndKey,
  type CertificateAuthority,
  type IssueOptions,
} from './certificates.js';
