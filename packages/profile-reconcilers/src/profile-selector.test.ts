import { KubeClient } from '@kfx/kube-runtime/client';
import { ConfigError } from '@kfx/kube-runtime/serving';
import { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { enableBuiltInReconcilers } from './built-in.js';
import { createProfileController } from './controller/controller.js';
import { parseProfileSelector, profileSelectorQuery } from './profile-selector.js';

function problems(raw: unknown): readonly string[] {
  try {
    parseProfileSelector(raw);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('parseProfileSelector', () => {
  it('selects every Profile when absent, null or empty', () => {
    expect(parseProfileSelector(undefined)).toBeUndefined();
    expect(parseProfileSelector(null)).toBeUndefined();
    expect(profileSelectorQuery(parseProfileSelector({}))).toBeUndefined();
  });

  it('turns matchLabels and every operator into the API server query', () => {
    const selector = parseProfileSelector({
      matchLabels: { 'kfx.dev/shard': 'a', tier: '' },
      matchExpressions: [
        { key: 'env', operator: 'In', values: ['prod', 'staging'] },
        { key: 'example.com/team', operator: 'NotIn', values: ['legacy'] },
        { key: 'kfx.dev/canary', operator: 'Exists' },
        { key: 'kfx.dev/frozen', operator: 'DoesNotExist', values: [] },
      ],
    });
    expect(profileSelectorQuery(selector)).toBe(
      'kfx.dev/shard=a,tier=,env in (prod,staging),example.com/team notin (legacy),kfx.dev/canary,!kfx.dev/frozen',
    );
  });

  it.each([
    [
      { matchExpressions: [{ key: 'env', operator: 'Equals', values: ['a'] }] },
      /^profileSelector\.matchExpressions\[0\]\.operator: .*"In".*"NotIn".*"Exists".*"DoesNotExist"/,
    ],
    [
      { matchExpressions: [{ key: 'env', operator: 'Exists', values: ['a'] }] },
      /^profileSelector\.matchExpressions\[0\]\.values: Exists takes no values$/,
    ],
    [
      { matchExpressions: [{ key: 'env', operator: 'DoesNotExist', values: ['a'] }] },
      /^profileSelector\.matchExpressions\[0\]\.values: DoesNotExist takes no values$/,
    ],
    [
      { matchExpressions: [{ key: 'env', operator: 'In' }] },
      /^profileSelector\.matchExpressions\[0\]\.values: In needs values$/,
    ],
    [
      { matchExpressions: [{ key: 'env', operator: 'NotIn', values: [] }] },
      /^profileSelector\.matchExpressions\[0\]\.values: NotIn needs values$/,
    ],
    [
      { matchExpressions: [{ key: 'env', operator: 'In', values: ['a b'] }] },
      /^profileSelector\.matchExpressions\[0\]\.values\[0\]: expected a label value/,
    ],
    [
      { matchLabels: { 'kfx.dev/shard': 'a,b' } },
      /^profileSelector\.matchLabels\["kfx\.dev\/shard"\]: expected a label value/,
    ],
    [{ matchLabels: { 'a/b/c': 'x' } }, /^profileSelector\.matchLabels.*: expected a label key/],
    [
      { matchExpressions: [{ operator: 'Exists' }] },
      /^profileSelector\.matchExpressions\[0\]\.key: /,
    ],
    [{ matchLabel: { a: 'b' } }, /^profileSelector\.matchLabel: unknown key$/],
    ['team=a', /^profileSelector: .*object/],
  ])('refuses %j, naming the field', (raw, expected) => {
    const found = problems(raw);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(expected);
  });

  it('names the key it is given', () => {
    expect(problems({ matchLabels: { a: 'b c' } })[0]).toMatch(/^profileSelector/);
    expect(() =>
      parseProfileSelector({ matchLabels: { a: 'b c' } }, 'config.profileSelector'),
    ).toThrow(/config\.profileSelector\.matchLabels\.a: expected a label value/);
  });
});

describe('createProfileController', () => {
  it('refuses a bad profileSelector before touching the cluster, naming the field', () => {
    // Nothing listens there: the check must come before any request.
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [{ name: 'none', server: 'https://127.0.0.1:1' }],
      users: [{ name: 'none', token: 'none' }],
      contexts: [{ name: 'none', cluster: 'none', user: 'none' }],
      currentContext: 'none',
    });
    const client = KubeClient.fromKubeConfig(kubeConfig, {
      registry: new Registry(),
      logger: pino({ level: 'silent' }),
    });
    expect(() =>
      createProfileController({
        client,
        config: {
          reconcilers: enableBuiltInReconcilers(),
          profileSelector: {
            matchExpressions: [{ key: 'kfx.dev/shard', operator: 'Exists', values: ['a'] }],
          },
        },
      }),
    ).toThrow(/config\.profileSelector\.matchExpressions\[0\]\.values: Exists takes no values/);
  });
});
