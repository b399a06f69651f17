// Check `no-proxy` against what the real proxy injector gives a dry-run Pod on a real control
// plane (Kubernetes 1.37: ServiceCIDR objects, a kwok node without spec.podCIDR): a configured
// service range that misses the cluster's is an error; a pod range the injector had to guess
// is a warning naming the value to set (the range the Pods are seen in); the Profile
// namespaces NO_PROXY lacks are named; each goes once the value it names is set.
import { KubeClient } from '@kfx/kube-runtime/client';
import { useSharedControlPlane, type SharedControlPlane } from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  adminDoctor,
  apply,
  createProfile,
  deleteProfiles,
  type Doctor,
} from '../testing/cluster.js';
import { serveKfxWebhook } from '../testing/kfx-webhook.js';
import type { Finding } from '../finding.js';

let env: SharedControlPlane;
let doctor: Doctor;
let discovery: KubeClient;
let profile: string;

beforeAll(async () => {
  env = await useSharedControlPlane(inject('kfxControlPlane'), 'doctor-no-proxy');
  doctor = adminDoctor(env);
  discovery = KubeClient.fromKubeConfig(env.kubeConfig);
  profile = `${env.namespace}-p`;
  await createProfile(env, profile);
  // Pods behind a Service, so that the addresses Pods get are seen in its EndpointSlice.
  const labels = { app: 'seen' };
  await apply(
    env,
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'seen', namespace: env.namespace },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            containers: [{ name: 'c', image: 'kfx.invalid/c:1' }],
            tolerations: [{ operator: 'Exists' }],
            nodeSelector: { type: 'kwok' },
          },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'seen', namespace: env.namespace },
      spec: { selector: labels, ports: [{ port: 80 }] },
    },
  );
});
afterAll(async () => {
  await deleteProfiles(env, [profile]);
  discovery.close();
  doctor.close();
  await env.release();
});

const noProxy = () => doctor.findings(['no-proxy'], profile, { namespaces: [] });
const byCode = (findings: readonly Finding[], code: string) =>
  findings.find((finding) => finding.code === code);
/** The list a fix sets: `… podCidrs to {10.0.0.0/24} …` (or `--set '…={…}'`) → its items. */
const valueOf = (fix: string | undefined) => /\{([^}]*)\}/.exec(fix ?? '')?.[1]?.split(',') ?? [];

describe('check no-proxy', () => {
  it("warns that the pod range is flannel's guess, naming the value to set, and is quiet once it is set", async () => {
    const served = await serveKfxWebhook(env, { name: env.namespace, client: discovery });
    let guessed: Finding | undefined;
    try {
      guessed = byCode(await noProxy(), 'no-proxy.pod-range-guessed');
    } finally {
      await served.stop();
    }
    expect(guessed?.severity).toBe('warning');
    expect(guessed?.message).toContain("flannel's 10.244.0.0/16: no Node has spec.podCIDR");
    expect(guessed?.fix).toMatch(/podCidrs to \{[^}]+\}/);
    // The range the Pods are seen in (kwok's), or the placeholder where none was seen yet.
    const named = valueOf(guessed?.fix).filter((value) => !value.startsWith('<'));
    const podCidrs = named.length > 0 ? named : ['10.233.0.0/16'];
    const fixed = await serveKfxWebhook(env, {
      name: env.namespace,
      client: discovery,
      proxyInjector: { httpProxy: 'http://proxy.test:3128', podCidrs },
    });
    try {
      expect(byCode(await noProxy(), 'no-proxy.pod-range-guessed')).toBeUndefined();
    } finally {
      await fixed.stop();
    }
  });

  it("is an error when a configured service range misses the cluster's ServiceCIDR, naming it", async () => {
    const wrong = await serveKfxWebhook(env, {
      name: env.namespace,
      client: discovery,
      proxyInjector: { httpProxy: 'http://proxy.test:3128', serviceCidrs: ['10.96.0.0/12'] },
    });
    let serviceCidrs: string[];
    try {
      const missed = byCode(await noProxy(), 'no-proxy.service-range');
      expect(missed?.severity).toBe('error');
      serviceCidrs = valueOf(missed?.fix);
      expect(serviceCidrs).toEqual(['10.0.0.0/24']);
    } finally {
      await wrong.stop();
    }
    const right = await serveKfxWebhook(env, {
      name: env.namespace,
      client: discovery,
      proxyInjector: { httpProxy: 'http://proxy.test:3128', serviceCidrs },
    });
    try {
      expect(byCode(await noProxy(), 'no-proxy.service-range')).toBeUndefined();
    } finally {
      await right.stop();
    }
  });

  it('names the Profile namespaces NO_PROXY lacks, and is quiet once noProxy has them', async () => {
    const without = await serveKfxWebhook(env, { name: env.namespace, client: discovery });
    let noProxyValue: string[];
    try {
      const missing = byCode(await noProxy(), 'no-proxy.profile-namespaces');
      expect(missing?.message).toContain(profile);
      noProxyValue = valueOf(missing?.fix);
      expect(noProxyValue).toContain(`.${profile}`);
    } finally {
      await without.stop();
    }
    const withIt = await serveKfxWebhook(env, {
      name: env.namespace,
      client: discovery,
      proxyInjector: { httpProxy: 'http://proxy.test:3128', noProxy: noProxyValue },
    });
    try {
      expect(byCode(await noProxy(), 'no-proxy.profile-namespaces')).toBeUndefined();
    } finally {
      await withIt.stop();
    }
  });
});
