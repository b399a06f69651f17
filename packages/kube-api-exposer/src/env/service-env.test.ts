import { describe, expect, it } from 'vitest';
import { formatEnv, serviceEnv } from './service-env.js';

describe('serviceEnv', () => {
  it('builds the variables a kubelet sets for the kubernetes Service, for the exposed port', () => {
    expect(serviceEnv({ host: '203.0.113.10', port: 6443 })).toEqual({
      KUBERNETES_SERVICE_HOST: '203.0.113.10',
      KUBERNETES_SERVICE_PORT: '6443',
      KUBERNETES_SERVICE_PORT_HTTPS: '6443',
      KUBERNETES_PORT: 'tcp://203.0.113.10:6443',
      KUBERNETES_PORT_6443_TCP: 'tcp://203.0.113.10:6443',
      KUBERNETES_PORT_6443_TCP_PROTO: 'tcp',
      KUBERNETES_PORT_6443_TCP_PORT: '6443',
      KUBERNETES_PORT_6443_TCP_ADDR: '203.0.113.10',
    });
  });

  it('brackets an IPv6 address in URLs only', () => {
    const env = serviceEnv({ host: '2001:db8::10', port: 443 });
    expect(env.KUBERNETES_SERVICE_HOST).toBe('2001:db8::10');
    expect(env.KUBERNETES_PORT).toBe('tcp://[2001:db8::10]:443');
  });
});

describe('formatEnv', () => {
  it('prints shell assignments, and leaves the CA out of them', () => {
    const text = formatEnv(
      { host: 'k8s-api.example.org', port: 443, caPem: '-----BEGIN CERTIFICATE-----\n' },
      'env',
    );
    expect(text.split('\n')[0]).toBe('KUBERNETES_SERVICE_HOST=k8s-api.example.org');
    expect(text).not.toContain('BEGIN CERTIFICATE');
  });

  it('puts everything into JSON', () => {
    const json = JSON.parse(
      formatEnv({ host: '203.0.113.10', port: 443, caPem: undefined }, 'json'),
    ) as Record<string, unknown>;
    expect(json).toMatchObject({
      kubernetesApiAddr: '203.0.113.10',
      kubernetesApiPort: 443,
      kubernetesApiCaCrt: null,
    });
  });
});
