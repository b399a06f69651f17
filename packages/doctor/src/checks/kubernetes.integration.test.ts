// Check `kubernetes` against the API server's own /version, on the newest and (project
// integration-oldest) the oldest minor kfx supports: inside the range both; what 1.30 lacks
// (ServiceCIDR objects) named there with what to set, nothing on 1.37. Its own plane: the
// package's shared plane is the newest minor only.
import { atLeastMinor, startControlPlane, type ControlPlane } from '@kfx/testenv';
import { KubeClient } from '@kfx/kube-runtime/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagnose } from '../diagnose.js';

let env: ControlPlane;
let client: KubeClient;
beforeAll(async () => {
  env = await startControlPlane({ profileCrd: false });
  client = KubeClient.fromKubeConfig(env.kubeConfig);
});
afterAll(async () => {
  client.close();
  await env.stop();
});

describe('check kubernetes', () => {
  it('is inside the supported range, and names what this minor lacks with the value to set', async () => {
    const report = await diagnose(client, { checks: ['kubernetes'], skipAccessReview: true });
    expect(report.kubernetesVersion).toBe(env.kubernetesVersion);
    const codes = report.findings.map((finding) => finding.code);
    expect(codes).not.toContain('kubernetes.too-old');
    expect(codes).not.toContain('kubernetes.too-new');
    const missing = report.findings.filter(
      (finding) => finding.code === 'kubernetes.missing-feature',
    );
    if (atLeastMinor(env.kubernetesVersion, '1.33')) {
      expect(missing).toEqual([]);
    } else {
      expect(missing).toHaveLength(1);
      expect(missing[0]?.message).toContain('has no ServiceCIDR objects');
      expect(missing[0]?.fix).toContain('proxyInjector.config.serviceCidrs');
    }
  });
});
