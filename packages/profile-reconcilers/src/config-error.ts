// Configuration errors that name the key at fault, e.g.
// `reconcilers.quotas.defaults.cpu: expected a Kubernetes quantity (e.g. 4, 500m, 16Gi)`.
import type { z } from 'zod';

export class ConfigError extends Error {
  override name = 'ConfigError';

  constructor(
    /** One line per problem, each starting with the key. */
    readonly problems: string[],
  ) {
    super(problems.join('\n'));
  }
}

export function keyOf(prefix: string, path: readonly PropertyKey[]): string {
  return [prefix, ...path.map(String)].filter((part) => part !== '').join('.');
}

/** One line per zod issue, with the full key; unknown keys are named too. */
export function zodProblems(prefix: string, error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const where = keyOf(prefix, issue.path) || '(top level)';
      return `${where}: unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
    }
    return `${keyOf(prefix, issue.path) || '(top level)'}: ${issue.message}`;
  });
}
