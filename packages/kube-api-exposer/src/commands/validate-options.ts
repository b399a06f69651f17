// How the typed functions (`serve`, `renderManifests`, `mintKubeconfig`, `renderEnv`, `check`)
// validate their options: with zod, every problem an `OptionsError` naming the option it is about.
import { keyPath } from '@kfx/kube-runtime/serving';
import type { z } from 'zod';
import { OptionsError, type OptionIssue } from '../options-error.js';

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** Validates `input` with `schema`; throws an `OptionsError` naming every bad option. */
export function validateOptions<S extends z.ZodObject>(
  fn: string,
  schema: S,
  input: unknown,
): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = result.error.issues.flatMap((issue): OptionIssue[] => {
    if (issue.code === 'unrecognized_keys') {
      const at = issue.path.filter((k): k is string | number => typeof k !== 'symbol');
      return issue.keys.map((key) => ({
        option: keyPath('', [...at, key]),
        message: `the options are ${Object.keys(schema.shape).join(', ')}`,
        kind: 'unknown' as const,
      }));
    }
    const path = issue.path.filter((k): k is string | number => typeof k !== 'symbol');
    const got = valueAt(input, path);
    const missing = got === undefined && issue.code === 'invalid_type';
    return [
      {
        option: keyPath('', path),
        message: issue.message,
        kind: missing ? 'missing' : 'invalid',
        ...(got === undefined ? {} : { got }),
      },
    ];
  });
  throw new OptionsError(fn, issues);
}
