import type { KubeObject } from '@kfx/kube-runtime/client';
import { describe, expect, it } from 'vitest';
import { ceilingsSchema } from '../ceilings.js';
import { enableReconciler } from '../enable.js';
import type { Profile } from '../profile.js';
import { networkPoliciesReconciler } from './network-policies.js';

type Policy = KubeObject & { spec: Record<string, unknown> };
const profile = (labels: Record<string, string> = {}): Profile => ({
  metadata: { name: 'team-a', uid: 'u-1', labels },
  spec: { owner: { kind: 'User', name: 'alice@example.com' } },
});
/** Every switched policy is tenant-switchable here, unless `switchable` says which. */
const policies = (
  config: unknown,
  labels: Record<string, string> = {},
  switchable = [
    'allow-gitea-to-postgres',
    'allow-employee-egress-to-cloud-main-system',
    'allow-egress-internet',
  ],
) => {
  const enabled = enableReconciler(
    networkPoliciesReconciler,
    config,
    { baseDir: '.', key: 'reconcilers.network-policies' },
    ceilingsSchema.parse({ networkPolicies: switchable }),
  );
  const { objects, problems } = enabled.desired(profile(labels));
  return {
    byName: new Map(objects.map((o) => [o.metadata?.name ?? '', o as Policy])),
    problems,
  };
};

const unclassified = {
  matchExpressions: [
    { key: 'data.statcan.gc.ca/classification', operator: 'NotIn', values: ['protected-b'] },
  ],
};

describe('pod selectors', () => {
  it('give the whole preset to some Pods, which may then talk to each other only', () => {
    const { byName } = policies({ podSelector: unclassified });
    expect(byName.size).toBe(11);
    for (const policy of byName.values()) expect(policy.spec.podSelector).toEqual(unclassified);
    expect(byName.get('allow-same-namespace')?.spec).toMatchObject({
      ingress: [{ from: [{ podSelector: unclassified }] }],
      egress: [{ to: [{ podSelector: unclassified }] }],
    });
  });

  it('change the Pods one preset member selects, keeping the rest of it', () => {
    const knativeServices = {
      matchExpressions: [{ key: 'serving.knative.dev/service', operator: 'Exists' }],
    };
    const { byName } = policies({
      podSelector: unclassified,
      policies: [{ name: 'allow-knative', podSelector: knativeServices }],
    });
    expect(byName.get('allow-knative')?.spec).toEqual({
      podSelector: knativeServices,
      policyTypes: ['Ingress'],
      ingress: [
        {
          from: [
            {
              namespaceSelector: {
                matchLabels: { 'kubernetes.io/metadata.name': 'knative-serving' },
              },
            },
          ],
        },
      ],
    });
    expect(byName.get('default-deny')?.spec.podSelector).toEqual(unclassified);
  });
});

describe('switches', () => {
  const gitea = {
    name: 'allow-gitea-to-postgres',
    when: { label: 'sourcecontrol.statcan.gc.ca/enabled', value: 'true' },
    spec: { podSelector: { matchLabels: { app: 'gitea' } }, policyTypes: ['Egress'] },
  };
  const employees = {
    name: 'allow-employee-egress-to-cloud-main-system',
    when: { label: 'state.aaw.statcan.gc.ca/exists-non-cloud-main-user', value: ['false', '0'] },
    spec: { podSelector: {}, policyTypes: ['Egress'] },
  };
  const config = { preset: 'none', policies: [gitea, employees] };

  it('turn a policy on by any label and value, including "false"', () => {
    expect([...policies(config).byName.keys()]).toEqual([]);
    expect([
      ...policies(config, {
        'sourcecontrol.statcan.gc.ca/enabled': 'true',
        'state.aaw.statcan.gc.ca/exists-non-cloud-main-user': 'false',
      }).byName.keys(),
    ]).toEqual(['allow-gitea-to-postgres', 'allow-employee-egress-to-cloud-main-system']);
    expect([
      ...policies(config, {
        'sourcecontrol.statcan.gc.ca/enabled': 'yes',
        'state.aaw.statcan.gc.ca/exists-non-cloud-main-user': '0',
      }).byName.keys(),
    ]).toEqual(['allow-employee-egress-to-cloud-main-system']);
  });

  it('can make an optional preset member always on, or switch it by another label', () => {
    const always = policies({ policies: [{ name: 'allow-egress-internet', optional: false }] });
    expect(always.byName.has('allow-egress-internet')).toBe(true);
    const switched = {
      policies: [{ name: 'allow-egress-internet', when: { label: 'net', value: 'open' } }],
    };
    expect(policies(switched, { net: 'open' }).byName.has('allow-egress-internet')).toBe(true);
    const old = policies(switched, { 'network-policies.kfx.dev/allow-egress-internet': 'true' });
    expect(old.byName.has('allow-egress-internet')).toBe(false);
    expect(old.problems[0]?.label).toBe('network-policies.kfx.dev/allow-egress-internet');
  });

  it('are turned on by a Profile only where ceilings.networkPolicies lists them', () => {
    const labels = {
      'sourcecontrol.statcan.gc.ca/enabled': 'true',
      'state.aaw.statcan.gc.ca/exists-non-cloud-main-user': 'false',
    };
    const { byName, problems } = policies(config, labels, ['allow-gitea-to-postgres']);
    expect([...byName.keys()]).toEqual(['allow-gitea-to-postgres']);
    expect(problems).toEqual([
      {
        label: 'state.aaw.statcan.gc.ca/exists-non-cloud-main-user',
        value: 'false',
        reason: 'CeilingExceeded',
        message:
          'label state.aaw.statcan.gc.ca/exists-non-cloud-main-user="false" not applied: NetworkPolicy allow-employee-egress-to-cloud-main-system is not tenant-switchable (ceilings.networkPolicies: allow-gitea-to-postgres); it stays off',
      },
    ]);
    // A policy made always-on by the configuration is no switch.
    const always = policies(
      { policies: [{ name: 'allow-egress-internet', optional: false }] },
      {},
      [],
    );
    expect(always.byName.has('allow-egress-internet')).toBe(true);
  });
});

describe('mistakes', () => {
  it.each([
    [
      { policies: [{ name: 'vault-egress', podSelector: {} }] },
      /policies\[0\]: "vault-egress" needs a spec: it is not in the kubeflow preset/,
    ],
    [
      { policies: [{ name: 'x', spec: {}, optional: true, when: { label: 'a', value: 'b' } }] },
      /policies\[0\]: set optional or when, not both/,
    ],
    [
      { podSelector: { matchExpressions: [{ key: 'tier', operator: 'In' }] } },
      /podSelector\.matchExpressions\[0\]\.values: In needs values/,
    ],
    [
      { podSelector: { matchExpressions: [{ key: 'tier', operator: 'Equals', values: ['a'] }] } },
      /podSelector\.matchExpressions\[0\]\.operator/,
    ],
    [
      {
        policies: [
          { name: 'a', spec: {} },
          { name: 'a', spec: {} },
        ],
      },
      /policies\[1\]: "a" is listed twice/,
    ],
    [
      { disable: ['allow-knative'], policies: [{ name: 'allow-knative', podSelector: {} }] },
      /policies\[0\]: "allow-knative" is changed here but disabled/,
    ],
  ])('are refused with the key: %j', (config, message) => {
    expect(() => policies(config)).toThrow(message);
  });
});
