// Shared vitest configuration. Two projects per package:
// - unit: colocated *.test.ts, run in parallel;
// - integration: *.integration.test.ts against a real control plane, one file at a time
//   (each starts its own kube-apiserver; two cores do not run several well at once).
// Every run writes .reports/vitest.json, which .ci/run sums into "N passed, N failed".
import { defineConfig } from 'vitest/config';

const integration = '**/*.integration.test.ts';

/** @param {import('./index.d.ts').KfxTestOptions} [options] */
export function kfxTest(options = {}) {
  const { integrationTimeoutMs = 180_000 } = options;
  return defineConfig({
    resolve: { conditions: ['@kfx/source'] },
    ssr: { resolve: { conditions: ['@kfx/source'] } },
    test: {
      reporters: ['default', ['json', { outputFile: '.reports/vitest.json' }]],
      passWithNoTests: false,
      projects: [
        {
          extends: true,
          test: {
            name: 'unit',
            include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
            exclude: [integration, '**/node_modules/**', '**/dist/**'],
          },
        },
        {
          extends: true,
          test: {
            name: 'integration',
            include: [integration],
            exclude: ['**/node_modules/**', '**/dist/**'],
            fileParallelism: false,
            testTimeout: integrationTimeoutMs,
            hookTimeout: integrationTimeoutMs,
          },
        },
      ],
    },
  });
}
