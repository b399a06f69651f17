// How each `kfx expose-api` subcommand describes its options, free of any CLI library: the CLI
// turns these into flags, and every subcommand validates what it is given (from flags or from
// code) with zod, so a bad value is reported with the flag's name and what was expected.
import type { z } from 'zod';

export type OptionKind = 'string' | 'integer' | 'boolean' | 'list';

export interface OptionSpec {
  /** The key in the subcommand's options object (`tlsCert`). */
  name: string;
  /**
   * The flag as commander writes it: `--tls-cert <file>`; `--allow-path <prefix...>` for a list;
   * `--no-upgrades` for a boolean that defaults to true.
   */
  flag: string;
  description: string;
  kind: OptionKind;
  default?: string | number | boolean | readonly string[];
  required?: boolean;
  /** The only values accepted. */
  choices?: readonly string[];
}

export interface CommandSpec {
  /** The subcommand: `kfx expose-api <name>`. */
  name: string;
  summary: string;
  options: readonly OptionSpec[];
}

export class OptionsError extends Error {
  constructor(
    readonly command: string,
    readonly problems: readonly string[],
  ) {
    super(`kfx expose-api ${command}: ${problems.join('; ')}`);
    this.name = 'OptionsError';
  }
}

/** `--tls-cert <file>` → `--tls-cert`. */
export function flagName(spec: OptionSpec): string {
  return spec.flag.split(/[ <[]/)[0] ?? spec.flag;
}

/** Converts a flag's text to the option's type (integers), naming the flag when it cannot. */
export function parseOptionValue(spec: OptionSpec, raw: string): string | number {
  if (spec.kind !== 'integer') return raw;
  if (!/^-?\d+$/.test(raw.trim())) {
    throw new OptionsError('', [
      `${flagName(spec)}: expected a whole number, got ${JSON.stringify(raw)}`,
    ]);
  }
  return Number(raw);
}

/** Validates options with a zod schema; every problem names its flag. */
export function validateOptions<S extends z.ZodType>(
  command: CommandSpec,
  schema: S,
  input: unknown,
): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const given = (input ?? {}) as Record<string, unknown>;
  const problems = result.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return `unknown option${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')} (the options are ${command.options.map((o) => o.name).join(', ')})`;
    }
    const key = typeof issue.path[0] === 'string' ? issue.path[0] : undefined;
    const spec = command.options.find((o) => o.name === key);
    const name = spec ? flagName(spec) : (key ?? 'options');
    const value = key === undefined ? undefined : given[key];
    if (value === undefined && issue.code === 'invalid_type') return `${name} is required`;
    const got = value === undefined ? '' : `, got ${JSON.stringify(value)}`;
    return `${name}: ${issue.message}${got}`;
  });
  throw new OptionsError(command.name, problems);
}
