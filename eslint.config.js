// One ESLint flat config for the monorepo: typescript-eslint's type-checked presets,
// Prettier owning formatting. Each package lints itself with `eslint .`.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

// A package reaches another one through its name (its exports), never through a relative climb
// into that package's src or bench: shared test and bench code lives in @kfx/testenv.
const byPackageName = {
  regex: '^(\\.\\./){2,}([^/]+/)+(src|bench)(/|$)',
  message:
    "Import another package by its name; shared test and bench code belongs in '@kfx/testenv'.",
};

// One block per folder of uat-runner's src: it may import the folders after it in `order`, never
// those before it, nor the run on top of them (base/ not even run-options.ts).
function uatRunnerFolders(order) {
  return order.map((folder, at) => {
    const above = order.slice(0, at);
    const below = at < order.length - 1 ? ' or a folder after it' : '';
    const topLevel = folder === 'base' ? '^\\.\\./[^/]+$' : '^\\.\\./(?!run-options\\.js$)[^/]+$';
    const patterns = [
      byPackageName,
      {
        regex: topLevel,
        message: `The run (run*.ts, suite.ts, results.ts, steps.ts, index.ts) builds on ${folder}/, not the reverse: move what both need into ${folder}/${below}.`,
      },
    ];
    if (above.length > 0) {
      patterns.push({
        regex: `^\\.\\./(${above.join('|')})(/|$)`,
        message: `${folder}/ comes after ${above.join('/, ')}/ in uat-runner's order (eslint.config.js): they may import it, it may not import them.`,
      });
    }
    return {
      files: [`packages/uat-runner/src/${folder}/**/*.ts`],
      rules: { 'no-restricted-imports': ['error', { paths: [kubeRuntimeRoot], patterns }] },
    };
  });
}

// @kfx/kube-runtime has no root entry: a process loads only the part it imports.
const kubeRuntimeRoot = {
  name: '@kfx/kube-runtime',
  message:
    'Import from the entry point that holds the name: @kfx/kube-runtime/client, /informer, /controller, /serving or /exit.',
};

export default defineConfig(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/.turbo/**', '**/.reports/**', '**/*.d.ts'] },
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      // Kubernetes objects are plain JSON typed with @kubernetes/client-node's model classes
      // (V1Pod, …), never instances of them: that is the point, not a mistake.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
      'no-restricted-imports': ['error', { paths: [kubeRuntimeRoot], patterns: [byPackageName] }],
    },
  },
  {
    // The exposer's layers: commands/ (the typed functions index.ts exports) is built on proxy/,
    // door/, token/, check/, env/, manifests/ and the modules beside them, never the reverse; what they
    // share with the commands (options-error.ts) sits below both.
    files: [
      'packages/kube-api-exposer/src/{proxy,door,interlink,token,check,env,manifests}/**/*.ts',
      'packages/kube-api-exposer/src/*.ts',
    ],
    ignores: ['packages/kube-api-exposer/src/index.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [kubeRuntimeRoot],
          patterns: [
            byPackageName,
            {
              regex: '^\\.\\.?/(\\.\\./)*commands(/|$)',
              message:
                "commands/ builds on this module, not the reverse: move what both need below commands/ (a test goes through '../index.js').",
            },
          ],
        },
      ],
    },
  },
  // uat-runner's folders, each allowed to import only the folders after it in this list: a
  // pipeline step names the artifacts' S3 layout; clean-up finds a run's leftovers on its Profile;
  // the Profile, its namespace and the runner's RBAC need no Job; the Job's command hands JUnit over
  // in the log; and everything sits on base/. The run itself (run*.ts, suite.ts, results.ts,
  // steps.ts, index.ts) is on top and builds on all of them; no folder imports it, except
  // run-options.ts for RUN_DEFAULTS (the defaults in one place; it takes only types from them).
  ...uatRunnerFolders([
    'pipeline',
    'cleanup',
    'profile',
    'job',
    'log',
    'artifacts',
    'inputs',
    'base',
  ]),
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  prettier,
);
