// Turns zod issues into lines a person can act on: the full key path as written in the
// kfx-webhook YAML (`pvcRewriter.rules[1].storageClassName: Required`) followed by what was expected.
import type { z } from 'zod';

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `["rules", 1]` under `pvcRewriter` → `pvcRewriter.rules[1]`. */
export function keyPath(root: string, path: readonly PropertyKey[]): string {
  let text = root;
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else if (typeof key === 'string' && IDENTIFIER.test(key)) text += text ? `.${key}` : key;
    else text += `[${JSON.stringify(String(key))}]`;
  }
  return text;
}

export function formatIssues(issues: readonly z.core.$ZodIssue[], root: string): string[] {
  return issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.map((key) => keyPath(keyPath(root, issue.path), [key]));
      return `${keys.join(', ')}: unknown key${keys.length > 1 ? 's' : ''}`;
    }
    return `${keyPath(root, issue.path)}: ${issue.message}`;
  });
}

/** Thrown for a configuration that cannot be used; `issues` holds one line per problem. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly issues: readonly string[];

  constructor(root: string, issues: readonly string[]) {
    super(`invalid ${root} configuration:\n  ${issues.join('\n  ')}`);
    this.issues = issues;
  }
}
