import { describe, expect, it } from 'vitest';
import { isQuantity, quotaOverridesFromLabels } from './quota-labels.js';

describe('quotaOverridesFromLabels', () => {
  it('maps prefixed labels to quota resources, gpu to requests.nvidia.com/gpu', () => {
    const labels = {
      'quotas.kfx.dev/requests.cpu': '8',
      'quotas.kfx.dev/limits.memory': '64Gi',
      'quotas.kfx.dev/gpu': '2',
      'app.kubernetes.io/part-of': 'kubeflow-profile',
    };
    expect(quotaOverridesFromLabels(labels, 'quotas.kfx.dev')).toMatchObject({
      hard: { 'requests.cpu': '8', 'limits.memory': '64Gi', 'requests.nvidia.com/gpu': '2' },
      problems: [],
    });
  });

  it('keeps the good values and reports a malformed one by label and value', () => {
    const result = quotaOverridesFromLabels(
      { 'quotas.statcan.gc.ca/cpu': 'lots', 'quotas.statcan.gc.ca/memory': '368G' },
      'quotas.statcan.gc.ca',
    );
    expect(result.hard).toEqual({ memory: '368G' });
    expect(result.problems).toEqual([
      expect.objectContaining({ label: 'quotas.statcan.gc.ca/cpu', value: 'lots' }),
    ]);
  });

  it('accepts the quantity forms Kubernetes accepts', () => {
    for (const q of ['1', '250m', '1.5', '16Gi', '100T', '1e3']) expect(isQuantity(q)).toBe(true);
    for (const q of ['', '1 Gi', 'Gi', '1GB', '--1']) expect(isQuantity(q)).toBe(false);
  });
});

describe('quota label validation', () => {
  const prefix = 'quotas.kfx.dev';

  it('reports a resource a ResourceQuota cannot limit, and keeps the others', () => {
    const result = quotaOverridesFromLabels(
      { 'quotas.kfx.dev/cpus': '4', 'quotas.kfx.dev/pods': '20' },
      prefix,
    );
    expect(result.hard).toEqual({ pods: '20' });
    expect(result.problems[0]?.reason).toContain(
      '"cpus" is not a resource a ResourceQuota can limit',
    );
  });

  it('refuses negative values and fractions of countable objects', () => {
    const result = quotaOverridesFromLabels(
      {
        'quotas.kfx.dev/requests.memory': '-1Gi',
        'quotas.kfx.dev/pods': '1.5',
        'quotas.kfx.dev/requests.cpu': '1.5',
      },
      prefix,
    );
    expect(result.hard).toEqual({ 'requests.cpu': '1.5' });
    expect(result.problems.map((p) => p.label).sort()).toEqual([
      'quotas.kfx.dev/pods',
      'quotas.kfx.dev/requests.memory',
    ]);
  });

  it('takes site aliases for resources whose names hold a slash', () => {
    const result = quotaOverridesFromLabels(
      { 'q.example.org/amd': '1', 'q.example.org/jobs': '2.5' },
      'q.example.org',
      { aliases: { amd: 'requests.amd.com/gpu', jobs: 'count/jobs.batch' } },
    );
    expect(result.hard).toEqual({ 'requests.amd.com/gpu': '1' });
    expect(result.problems[0]?.reason).toBe(
      '"2.5" is not a whole number, and count/jobs.batch counts objects',
    );
  });

  it('ignores labels with other prefixes, including a prefix that merely starts the same', () => {
    const result = quotaOverridesFromLabels({ 'quotas.kfx.dev.evil/pods': 'x' }, prefix);
    expect(result).toEqual({ hard: {}, requests: [], problems: [] });
  });
});
