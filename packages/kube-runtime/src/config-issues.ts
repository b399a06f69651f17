// Configuration errors a person can act on: each problem names the full key as written in the
// YAML (`pvcRewriter.rules[1].storageClassName: Required`), whatever validator found it. Every
// kfx package and app reports configuration problems through this one module.

/** What a validator reports; zod's issues have this shape. */
export interface ConfigIssue {
  code: string;
  path: readonly PropertyKey[];
  message: string;
  /** For unknown keys: the keys. */
  keys?: readonly string[];
}

const IDENTIFIER = /^[A-Za-z_$][\w$-]*$/;

/** `['rules', 1, 'storageClassName']` under `pvcRewriter` → `pvcRewriter.rules[1].storageClassName`. */
export function keyPath(root: string, path: readonly PropertyKey[]): string {
  let text = root;
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else if (typeof key === 'string' && IDENTIFIER.test(key)) text += text ? `.${key}` : key;
    else text += `[${JSON.stringify(String(key))}]`;
  }
  return text;
}

/** One line per issue, starting with the key (`(top level)` for the document itself). */
export function describeIssues(issues: readonly ConfigIssue[], root = ''): string[] {
  return issues.map((issue) => {
    const where = keyPath(root, issue.path);
    if (issue.code === 'unrecognized_keys' && issue.keys) {
      const keys = issue.keys.map((key) => keyPath(where, [key]));
      return `${keys.join(', ')}: unknown key${keys.length > 1 ? 's' : ''}`;
    }
    return `${where || '(top level)'}: ${issue.message}`;
  });
}

/** A configuration that cannot be used; `problems` holds one line per problem. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';

  constructor(
    readonly problems: readonly string[],
    /** First line of the message, e.g. `invalid configuration /etc/kfx/webhook.yaml:`. */
    heading = 'invalid configuration:',
  ) {
    super(`${heading}\n  ${problems.join('\n  ')}`);
  }
}
