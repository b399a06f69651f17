import { createCertificateAuthority } from '@kfx/dev-certs';
import { describe, expect, it } from 'vitest';
import { createAdmissionServer } from './server/server.js';
import {
  defineMutatingWebhook,
  defineValidatingWebhook,
  type MutatingWebhookDefinition,
} from './webhook.js';

const valid: MutatingWebhookDefinition<object> = {
  name: 'pvc-rewriter',
  path: '/mutate/pvc-rewriter',
  failureMode: 'admit',
  mutate: () => ({ allowed: true }),
};

describe('defineMutatingWebhook / defineValidatingWebhook', () => {
  it('returns the definition tagged with its type', () => {
    expect(defineMutatingWebhook(valid).type).toBe('mutating');
    const { name, path, failureMode } = valid;
    const validate = () => ({ allowed: true as const });
    expect(defineValidatingWebhook({ name, path, failureMode, validate }).type).toBe('validating');
  });

  const mistakes: [string, Record<string, unknown>, string][] = [
    ['an upper-case name', { name: 'PVC' }, 'webhook "PVC": name must be a DNS label'],
    ['a relative path', { path: 'mutate/pvc' }, 'path must start with /'],
    [
      'a path with a query',
      { path: '/mutate?x=1' },
      'path must start with / and hold only URL path characters',
    ],
    ['an unknown failure mode', { failureMode: 'ignore' }, 'failureMode must be "admit" or "deny"'],
    ['a missing handler', { mutate: undefined }, 'mutate must be a function'],
  ];

  it.each(mistakes)('refuses %s', (_what, change, message) => {
    const definition = { ...valid, ...change } as MutatingWebhookDefinition<object>;
    expect(() => defineMutatingWebhook(definition)).toThrow(message);
  });
});

describe('createAdmissionServer options', () => {
  const webhook = defineMutatingWebhook(valid);
  const tls = { cert: 'x', key: 'y' };

  const mistakes: [string, Record<string, unknown>, string][] = [
    ['no webhooks', { webhooks: [] }, 'webhooks must list at least one webhook'],
    [
      'two webhooks on one path',
      { webhooks: [webhook, { ...webhook, name: 'other' }] },
      'webhooks pvc-rewriter and other share the path /mutate/pvc-rewriter',
    ],
    [
      'two webhooks with one name',
      { webhooks: [webhook, { ...webhook, path: '/b' }] },
      'two webhooks are named pvc-rewriter',
    ],
    [
      'a webhook on /healthz',
      { webhooks: [{ ...webhook, path: '/healthz' }] },
      'uses the reserved path /healthz',
    ],
    [
      'tls without a key',
      { tls: { certFile: '/c' } },
      'tls must be { certFile, keyFile } or { cert, key }',
    ],
    ['a negative port', { port: -1 }, 'port must be an integer ≥ 0, got -1'],
    ['a zero body limit', { maxBodyBytes: 0 }, 'maxBodyBytes must be an integer ≥ 1'],
    ['a zero patch limit', { maxPatchBytes: 0 }, 'maxPatchBytes must be an integer ≥ 1'],
    ['a fractional deadline', { answerTimeoutMs: 0.5 }, 'answerTimeoutMs must be an integer ≥ 1'],
    [
      'a connection share below the largest body',
      { maxConnectionBytes: 1024 * 1024 },
      'maxConnectionBytes (1048576) must be at least maxBodyBytes (3145728)',
    ],
    [
      'an address share below the largest answer',
      { maxBodyBytes: 1024, maxAddressBytes: 1024 * 1024, maxPatchBytes: 1024 * 1024 },
      'maxAddressBytes (1048576) must be at least twice maxPatchBytes (1048576)',
    ],
  ];

  it.each(mistakes)('refuses %s when created, not when serving', (_what, change, message) => {
    const options = { webhooks: [webhook], tls, ...change } as Parameters<
      typeof createAdmissionServer
    >[0];
    expect(() => createAdmissionServer(options)).toThrow(message);
  });

  it('refuses text that is not a certificate, and a key that does not belong to it, on start', async () => {
    const server = createAdmissionServer({ webhooks: [webhook], tls, metricsPort: false, port: 0 });
    await expect(server.start()).rejects.toThrow(
      'TLS certificate from the tls option: not a PEM certificate',
    );
    const ca = createCertificateAuthority();
    const { cert } = ca.issue({ commonName: 'one' });
    const { key } = ca.issue({ commonName: 'another' });
    const mismatched = createAdmissionServer({
      webhooks: [webhook],
      tls: { cert, key },
      metricsPort: false,
      port: 0,
    });
    await expect(mismatched.start()).rejects.toThrow(
      /^TLS certificate and key from the tls option: .*key values mismatch/,
    );
  });
});
