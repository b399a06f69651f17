// Check `profiles`: every Profile's state (profile-status.ts), the KFAM bindings of its
// namespace (profile-bindings.ts), its quota against its LimitRange (profile-quotas.ts), and Pod
// Security against the Istio mode (pod-security.ts).
import { ran, skipped, type Check } from '../check.js';
import { profileBindingFindings } from './profile-bindings.js';
import { profileQuotaFindings } from './profile-quotas.js';
import { podSecurityCheckFindings } from './pod-security.js';
import { profileStatusFindings } from './profile-status.js';

export const profilesCheck: Check = async ({ cluster, targets }) => {
  const profiles = await cluster.profiles();
  if (cluster.missingApis.has('profiles')) {
    return skipped('the API server does not serve profiles.kubeflow.org (no Profile CRD)');
  }
  if (profiles.length === 0) return skipped('no Profile');
  const { profileNamespaces } = await targets();
  const parts = await Promise.all([
    profileStatusFindings(cluster),
    profileBindingFindings(cluster, new Set(profileNamespaces)),
    profileQuotaFindings(cluster, profileNamespaces),
    podSecurityCheckFindings(cluster, profileNamespaces),
  ]);
  return ran(parts.flat());
};
