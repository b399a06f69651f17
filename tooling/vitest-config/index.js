// Shared vitest configuration. Two projects per package:
// - unit: colocated *.test.ts, run in parallel (60 s a test: some run a built binary, which on
//   two busy cores takes more than vitest's default 5 s);
// - integration: *.integration.test.ts against a real control plane, one file at a time (two
//   cores do not run several well at once). With `controlPlane`, one plane serves the package's
//   run (control-plane-setup.js) and each file works in a namespace of its own; a file that must
//   own a plane starts one itself.
// - integration-oldest: the files a package names in `oldestMinor` (those touching APIs that
//   differ between Kubernetes minors) once more, on the oldest minor kfx supports
//   (KFX_KUBERNETES_MINOR=oldest, read by @kfx/testenv), never beside another project's files.
// Every run writes .reports/vitest.json, which .ci/run sums into "N passed, N failed".
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const integration = '**/*.integration.test.ts';

/** @param {import('./index.d.ts').KfxTestOptions} [options] */
export function kfxTest(options = {}) {
  const { integrationTimeoutMs = 180_000, controlPlane, oldestMinor = [] } = options;
  const { oldestMinor: sharedOldest = true, ...planeOptions } = controlPlane ?? {};
  /** @param {'oldest'} [minor] unset: $KFX_KUBERNETES_MINOR, as the files' own planes */
  const shared = (minor) =>
    controlPlane && (minor === undefined || sharedOldest)
      ? {
          globalSetup: [fileURLToPath(new URL('./control-plane-setup.js', import.meta.url))],
          provide: {
            kfxControlPlaneOptions: minor
              ? { ...planeOptions, kubernetesMinor: minor }
              : planeOptions,
          },
        }
      : {};
  const integrationProject = {
    exclude: ['**/node_modules/**', '**/dist/**'],
    fileParallelism: false,
    testTimeout: integrationTimeoutMs,
    hookTimeout: integrationTimeoutMs,
  };
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
            // Some unit tests run a built binary: on two busy cores a start can take seconds.
            testTimeout: 60_000,
            exclude: [integration, '**/node_modules/**', '**/dist/**'],
          },
        },
        {
          extends: true,
          test: {
            name: 'integration',
            include: [integration],
            ...integrationProject,
            ...shared(),
          },
        },
        ...(oldestMinor.length === 0
          ? []
          : [
              {
                extends: true,
                test: {
                  name: 'integration-oldest',
                  include: oldestMinor,
                  ...integrationProject,
                  ...shared('oldest'),
                  env: { KFX_KUBERNETES_MINOR: 'oldest' },
                  setupFiles: [fileURLToPath(new URL('./oldest-minor-marks.js', import.meta.url))],
                  // A group of its own, which vitest runs apart from the other projects' files
                  // (the integration files run last, one at a time): one minor's planes at once.
                  sequence: { groupOrder: 1 },
                },
              },
            ]),
      ],
    },
  });
}
