import { describe, expect, it } from 'vitest';
import { enableReconciler } from '../enable.js';
import type { Profile } from '../profile.js';
import { limitRangeReconciler, type LimitRangeJson } from './limit-range.js';

const env = { baseDir: '.', key: 'reconcilers.limitrange' };
const profile = (labels: Record<string, string> = {}): Profile => ({
  metadata: { name: 'team-a', uid: 'u1', labels },
});

function limits(config: unknown, labels: Record<string, string> = {}) {
  const desired = enableReconciler(limitRangeReconciler, config, env).desired(profile(labels));
  const item = (desired.objects[0] as LimitRangeJson).spec.limits[0];
  return { item, problems: desired.problems };
}

describe('limitrange', () => {
  it('gives containers 250m CPU and 256M memory by default and as default request', () => {
    const { item } = limits({});
    expect(item).toEqual({
      type: 'Container',
      default: { cpu: '250m', memory: '256M' },
      defaultRequest: { cpu: '250m', memory: '256M' },
    });
  });

  it('takes per-profile overrides from labels, gpu standing for nvidia.com/gpu', () => {
    const { item, problems } = limits(
      {},
      {
        'limitrange.kfx.dev/default.memory': '2Gi',
        'limitrange.kfx.dev/max.gpu': '1',
      },
    );
    expect(item?.default?.memory).toBe('2Gi');
    expect(item?.defaultRequest?.memory).toBe('256M');
    expect(item?.max).toEqual({ 'nvidia.com/gpu': '1' });
    expect(problems).toEqual([]);
  });

  it('applies two labels that only agree together (lower limit and lower request)', () => {
    const { item, problems } = limits(
      {},
      {
        'limitrange.kfx.dev/default.memory': '100M',
        'limitrange.kfx.dev/defaultRequest.memory': '100M',
      },
    );
    expect(item?.default?.memory).toBe('100M');
    expect(item?.defaultRequest?.memory).toBe('100M');
    expect(problems).toEqual([]);
  });

  it('drops a label that contradicts the config, names it, and keeps the rest', () => {
    const { item, problems } = limits(
      {},
      {
        'limitrange.kfx.dev/default.cpu': '100m',
        'limitrange.kfx.dev/default.memory': '1Gi',
        'limitrange.kfx.dev/defaultRequest.cpu': 'fast',
        'limitrange.kfx.dev/cpu': '1',
      },
    );
    expect(item?.default).toEqual({ cpu: '250m', memory: '1Gi' });
    const messages = problems.map((p) => p.message).join('\n');
    expect(messages).toContain(
      'label limitrange.kfx.dev/default.cpu="100m" ignored: defaultRequest cpu 250m would be above default 100m',
    );
    expect(messages).toContain('limitrange.kfx.dev/defaultRequest.cpu="fast"');
    expect(messages).toContain('limitrange.kfx.dev/cpu="1" ignored: the label name must be');
  });

  it('refuses a config whose defaults contradict each other, naming the key', () => {
    expect(() =>
      enableReconciler(
        limitRangeReconciler,
        { default: { cpu: '1' }, defaultRequest: { cpu: '2' } },
        env,
      ),
    ).toThrow(/reconcilers\.limitrange: defaultRequest cpu 2 would be above default 1/);
    expect(() => enableReconciler(limitRangeReconciler, { max: { memory: 'lots' } }, env)).toThrow(
      /reconcilers\.limitrange\.max\.memory: expected a non-negative Kubernetes quantity/,
    );
  });

  it('does not let extended resources be overcommitted', () => {
    const { problems } = limits(
      {},
      { 'limitrange.kfx.dev/default.gpu': '2', 'limitrange.kfx.dev/defaultRequest.gpu': '1' },
    );
    expect(problems.map((p) => p.message).join()).toContain('cannot be overcommitted');
  });
});
