// Shared vitest configuration. Two projects per package:
// - unit: colocated *.test.ts, run in parallel;
// - integration: *.integration.test.ts against a real control plane, one file at a time (two
//   cores do not run several well at once). With `controlPlane`, one plane serves the package's
//   run (control-plane-setup.js) and each file works in a namespace of its own; a file that must
//   own a plane starts one itself.
// Every run writes .reports/vitest.json, which .ci/run sums into "N passed, N failed".
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const integration = '**/*.integration.test.ts';

/** @param {import('./index.d.ts').KfxTestOptions} [options] */
export function kfxTest(options = {}) {
  const { integrationTimeoutMs = 180_000, controlPlane } = options;
  const shared = controlPlane
    ? {
        globalSetup: [fileURLToPath(new URL('./control-plane-setup.js', import.meta.url))],
        provide: { kfxControlPlaneOptions: controlPlane },
      }
    : {};
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
            ...shared,
          },
        },
      ],
    },
  });
}
