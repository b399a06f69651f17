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
      'no-restricted-imports': ['error', { patterns: [byPackageName] }],
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
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  prettier,
);
