import { describe, expect, it } from 'vitest';
import { clusterNoProxyDefaults, mergeNoProxy } from './no-proxy.js';

describe('NO_PROXY', () => {
  it('keeps site entries first, then cluster defaults with CIDRs and the API server IP', () => {
    const value = mergeNoProxy(
      ['.corp.example.com', 'localhost'],
      clusterNoProxyDefaults({
        serviceCidrs: ['10.96.0.0/12'],
        podCidrs: ['10.244.0.0/16'],
        apiServerServiceIp: '10.96.0.1',
      }),
    );
    expect(value).toEqual([
      '.corp.example.com',
      'localhost',
      '127.0.0.1',
      '::1',
      '.svc',
      '.svc.cluster.local',
      '.cluster.local',
      'kubernetes.default.svc',
      '10.96.0.0/12',
      '10.244.0.0/16',
      '10.96.0.1',
    ]);
  });

  it('splits comma-separated input, trims, and drops duplicates regardless of case', () => {
    expect(mergeNoProxy(['a.example, B.example ,,'], ['b.example', 'A.EXAMPLE'])).toEqual([
      'a.example',
      'B.example',
    ]);
  });

  it('honours a custom cluster domain written with stray dots', () => {
    expect(clusterNoProxyDefaults({ clusterDomain: '.k8s.internal.' })).toContain(
      '.svc.k8s.internal',
    );
  });
});
