// The README's "your own reconciler" example, kept compiling and true.
import type { V1ConfigMap } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineReconciler, enableBuiltInReconcilers, enableReconciler } from './index.js';

const costCenter = defineReconciler({
  name: 'cost-center',
  configSchema: z.strictObject({ defaultCenter: z.string().default('shared') }),
  kinds: () => [{ apiVersion: 'v1', kind: 'ConfigMap' }],
  desired(profile, { config }) {
    const configMap: V1ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cost-center', namespace: profile.metadata?.name ?? '' },
      data: {
        center: profile.metadata?.labels?.['example.com/cost-center'] ?? config.defaultCenter,
      },
    };
    return { objects: [configMap], problems: [] };
  },
});

describe('a reconciler of your own', () => {
  it('runs beside the built-in ones with its config validated', () => {
    const reconcilers = [
      ...enableBuiltInReconcilers({ quotas: {} }),
      enableReconciler(
        costCenter,
        { defaultCenter: 'research' },
        { baseDir: '.', key: 'cost-center' },
      ),
    ];
    expect(reconcilers.map((r) => r.name)).toEqual(['quotas', 'cost-center']);
    const desired = reconcilers[1]?.desired({ metadata: { name: 'team-a' } });
    expect((desired?.objects[0] as V1ConfigMap | undefined)?.data).toEqual({ center: 'research' });
    expect(() =>
      enableReconciler(costCenter, { defaultCentre: 'x' }, { baseDir: '.', key: 'cost-center' }),
    ).toThrow('cost-center.defaultCentre: unknown key');
  });
});
