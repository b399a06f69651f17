import { describe, expect, it } from 'vitest';
import { remoteNodeSettings } from './options.js';

describe('remote node options', () => {
  it('defaults as interLink does, and allows the API address only', () => {
    const settings = remoteNodeSettings({
      kubernetesApiAddr: '10.233.7.2',
      kubernetesApiPort: 30443,
    });
    expect(settings.name).toBe('interlink-node');
    expect(settings.capacity).toEqual({ cpu: '100', memory: '3000G', pods: '10000' });
    expect(settings.allowed).toEqual([{ host: '10.233.7.2', port: 30443 }]);
  });

  it('names the option that is wrong', () => {
    expect(() =>
      remoteNodeSettings({ kubernetesApiAddr: 'exposer', kubernetesApiPort: 1 }),
    ).toThrow('startRemoteNode: option kubernetesApiAddr: an IPv4 address');
    expect(() =>
      remoteNodeSettings({ kubernetesApiAddr: '10.0.0.1', kubernetesApiPort: 443, name: 'Node_1' }),
    ).toThrow('option name: a DNS label');
    expect(() =>
      remoteNodeSettings({ kubernetesApiAddr: '10.0.0.1', kubernetesApiPort: 443, allow: ['x'] }),
    ).toThrow('option allow.0: allow: "x" is not <IPv4 address>:<port>');
    expect(() =>
      remoteNodeSettings({
        kubernetesApiAddr: '10.0.0.1',
        kubernetesApiPort: 443,
        kubernetesApiCaCrt: 'x',
      }),
    ).toThrow('option kubernetesApiCaCrt: a PEM certificate');
  });
});
