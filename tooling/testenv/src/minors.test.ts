import { describe, expect, it } from 'vitest';
import {
  atLeastMinor,
  kubernetesMinor,
  NEWEST_MINOR,
  OLDEST_MINOR,
  ownBinaries,
} from './minors.js';

describe('Kubernetes minors of the test bed', () => {
  it('picks the newest by default, the oldest by name or number, and refuses any other', () => {
    expect(kubernetesMinor(undefined)).toBe(NEWEST_MINOR);
    expect(kubernetesMinor('')).toBe(NEWEST_MINOR);
    expect(kubernetesMinor('oldest')).toBe(OLDEST_MINOR);
    expect(kubernetesMinor(OLDEST_MINOR)).toBe(OLDEST_MINOR);
    expect(() => kubernetesMinor('1.28')).toThrow(
      `KFX_KUBERNETES_MINOR=1.28: the test bed runs Kubernetes ${NEWEST_MINOR} (newest) and ${OLDEST_MINOR} (oldest)`,
    );
  });

  it('builds only what must match the API server from the oldest minor’s module', () => {
    expect(ownBinaries(OLDEST_MINOR, ['etcd', 'kube-apiserver', 'kwok', 'kube-scheduler'])).toEqual(
      ['kube-apiserver', 'kube-scheduler'],
    );
    // The real node's daemons may not be newer than their API server.
    expect(ownBinaries(OLDEST_MINOR, ['kubelet', 'kube-proxy', 'crictl', 'coredns'])).toEqual([
      'kubelet',
      'kube-proxy',
    ]);
    expect(ownBinaries(NEWEST_MINOR, ['etcd', 'kwok'])).toEqual(['etcd', 'kwok']);
  });

  it('compares a server version with a minor', () => {
    expect(atLeastMinor('v1.30.14', '1.33')).toBe(false);
    expect(atLeastMinor('v1.37.1', '1.33')).toBe(true);
    expect(atLeastMinor('v1.33.0-eks-1', '1.33')).toBe(true);
  });
});
