// cert-manager is not installed on the test control plane and cannot be fetched here. These
// minimal CRDs (the real group, version, kinds and scopes, a spec that accepts any fields) let
// the apiserver accept the Issuers and Certificates the charts render: that proves the objects
// are well-formed Kubernetes objects of the right API, not that cert-manager would issue them.
import { fileURLToPath } from 'node:url';

export const CERT_MANAGER_CRDS = fileURLToPath(
  new URL('../crds/cert-manager-minimal.yaml', import.meta.url),
);
