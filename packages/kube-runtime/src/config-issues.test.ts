import { describe, expect, it } from 'vitest';
import { ConfigError, describeIssues, keyPath } from './config-issues.js';

describe('configuration problems', () => {
  it('writes key paths as they appear in YAML, quoting keys that are not plain names', () => {
    expect(keyPath('pvcRewriter', ['rules', 1, 'storageClassName'])).toBe(
      'pvcRewriter.rules[1].storageClassName',
    );
    expect(keyPath('reconcilers', ['quotas', 'defaults', 'requests.nvidia.com/gpu'])).toBe(
      'reconcilers.quotas.defaults["requests.nvidia.com/gpu"]',
    );
    expect(keyPath('', ['network-policies', 'preset'])).toBe('network-policies.preset');
  });

  it('names each unknown key with its full path, and the top level when there is no key', () => {
    expect(
      describeIssues(
        [
          { code: 'unrecognized_keys', path: ['tls'], message: 'Unrecognized key', keys: ['cert'] },
          { code: 'invalid_type', path: [], message: 'expected a mapping' },
        ],
        '',
      ),
    ).toEqual(['tls.cert: unknown key', '(top level): expected a mapping']);
  });

  it('lists every problem in the message, under a heading that says which file', () => {
    const error = new ConfigError(
      ['port: expected a port number', 'tls: Required'],
      'invalid configuration a.yaml:',
    );
    expect(error.message).toBe(
      'invalid configuration a.yaml:\n  port: expected a port number\n  tls: Required',
    );
    expect(error.problems).toHaveLength(2);
  });
});
