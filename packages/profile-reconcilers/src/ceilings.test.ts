import { describe, expect, it } from 'vitest';
import {
  ceilingsSchema,
  compareQuantities,
  identityAllowed,
  NO_CEILINGS,
  podSecurityAllowed,
} from './ceilings.js';
import { applyQuotaCeilings } from './quota-ceilings.js';

const ceilings = (raw: unknown) => ceilingsSchema.parse(raw);
const ask = (resource: string, value: string) => ({
  resource,
  value,
  field: `label quotas.kfx.dev/${resource}="${value}"`,
});

describe('quota ceilings', () => {
  const defaults = { 'requests.cpu': '70', 'requests.nvidia.com/gpu': '2' };

  it('let a Profile lower a quota freely, and raise it only up to the ceiling', () => {
    const limits = ceilings({ quotas: { 'requests.cpu': '100' } });
    const { hard, problems } = applyQuotaCeilings(
      [ask('requests.cpu', '100'), ask('requests.nvidia.com/gpu', '1'), ask('pods', '10')],
      defaults,
      limits,
    );
    expect(hard).toEqual({ 'requests.cpu': '100', 'requests.nvidia.com/gpu': '1', pods: '10' });
    expect(problems).toEqual([]);
  });

  it('keep the configured value beyond a ceiling, or without one, and say which', () => {
    const limits = ceilings({ quotas: { 'requests.cpu': '100' } });
    const { hard, problems } = applyQuotaCeilings(
      [ask('requests.cpu', '100k'), ask('requests.nvidia.com/gpu', '64')],
      defaults,
      limits,
    );
    expect(hard).toEqual({});
    expect(problems.map((p) => [p.reason, p.message])).toEqual([
      [
        'CeilingExceeded',
        'label quotas.kfx.dev/requests.cpu="100k" not applied: above the ceiling ceilings.quotas["requests.cpu"] (100); requests.cpu stays 70',
      ],
      [
        'CeilingExceeded',
        'label quotas.kfx.dev/requests.nvidia.com/gpu="64" not applied: above the configured 2, and no ceiling ceilings.quotas["requests.nvidia.com/gpu"] allows raising it; requests.nvidia.com/gpu stays 2',
      ],
    ]);
  });

  it('cut a value with no configured one to the ceiling (kf-resource-quota)', () => {
    const limits = ceilings({ quotas: { 'requests.cpu': '100' } });
    const { hard, problems } = applyQuotaCeilings([ask('requests.cpu', '500')], {}, limits);
    expect(hard).toEqual({ 'requests.cpu': '100' });
    expect(problems).toHaveLength(1);
  });

  it('compare quantities across units', () => {
    expect(compareQuantities('1Gi', '1G')).toBe(1);
    expect(compareQuantities('500m', '0.5')).toBe(0);
    expect(compareQuantities('2', '100k')).toBe(-1);
    expect(compareQuantities('lots', '1')).toBeUndefined();
  });
});

describe('Pod Security ceilings', () => {
  it('let a Profile tighten always, and loosen only to a level allowed to it', () => {
    expect(podSecurityAllowed(NO_CEILINGS, 'a', 'restricted', 'baseline')).toBe(true);
    expect(podSecurityAllowed(NO_CEILINGS, 'a', 'privileged', 'baseline')).toBe(false);
    // A mode the configuration leaves unset is as loose as privileged: any level tightens it.
    expect(podSecurityAllowed(NO_CEILINGS, 'a', 'baseline', undefined)).toBe(true);
    const gpu = ceilings({ podSecurity: { profiles: { 'gpu-team': ['privileged'] } } });
    expect(podSecurityAllowed(gpu, 'gpu-team', 'privileged', 'baseline')).toBe(true);
    expect(podSecurityAllowed(gpu, 'other', 'privileged', 'baseline')).toBe(false);
  });
});

describe('cloud identity ceilings', () => {
  const limits = ceilings({
    cloudIdentities: {
      awsIamRoles: ['arn:aws:iam::123456789012:role/kf-{profile}'],
      profiles: { 'data-science': { gcpServiceAccounts: ['shared@p.iam.gserviceaccount.com'] } },
    },
  });

  it('allow an identity bound to the Profile’s name, or given to it by name', () => {
    const role = (name: string) => `arn:aws:iam::123456789012:role/kf-${name}`;
    expect(identityAllowed(limits, 'team-a', 'awsIamRoles', role('team-a'))).toBe(true);
    expect(identityAllowed(limits, 'team-a', 'awsIamRoles', role('team-b'))).toBe(false);
    const shared = 'shared@p.iam.gserviceaccount.com';
    expect(identityAllowed(limits, 'data-science', 'gcpServiceAccounts', shared)).toBe(true);
    expect(identityAllowed(limits, 'team-a', 'gcpServiceAccounts', shared)).toBe(false);
    expect(identityAllowed(NO_CEILINGS, 'team-a', 'awsIamRoles', role('team-a'))).toBe(false);
  });

  it('refuse a pattern that would give every Profile the same identity', () => {
    const parsed = ceilingsSchema.safeParse({
      cloudIdentities: { awsIamRoles: ['arn:aws:iam::123456789012:role/admin'] },
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['cloudIdentities', 'awsIamRoles', 0]);
  });
});
