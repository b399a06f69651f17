// What the verbs of `kfx expose-api` share. Each verb's flags are commander options whose keys
// (`tlsCert` for `--tls-cert`) are the options of its @kfx/kube-api-exposer function, and its
// action hands their values to that function, which validates them. The library names a value it
// refuses or cannot use by its option (`port`), and other options in its texts in backquotes; the
// user is told the flag (`--listen`), through `flagOf`, and every problem is exit code 2 (1 is
// kept for a check that failed).
import { OptionsError, renameOptions } from '@kfx/kube-api-exposer';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { CliError, EXIT } from '../../cli-exit.js';

export interface Outcome {
  stdout: string;
  /** Notes for a person (files written, warnings). */
  stderr: string;
  /** `check` found a problem. */
  failed?: boolean;
  /** `serve`: serves until SIGTERM/SIGINT, drains, and resolves with the exit code. */
  run?: () => Promise<number>;
}

export interface Verb {
  /**
   * Calls the library function with the flags' values as its options; `inText` writes the
   * options a text of the library names as the flags that set them.
   */
  run(options: Record<string, unknown>, inText: (text: string) => string): Promise<Outcome>;
  /** Library options set by a flag of another name: serve's `host` and `port` by `--listen`. */
  fedBy?: Readonly<Record<string, string>>;
}

/** Parses an integer flag; commander names the flag when it throws. */
export function wholeNumber(raw: string): number {
  if (!/^-?\d+$/.test(raw.trim())) throw new InvalidArgumentError('Expected a whole number.');
  return Number(raw);
}

/** `--context`, where it only picks the context of `--kubeconfig`. */
export const contextOption = (): Option =>
  new Option('--context <name>', 'Context of --kubeconfig to use.');

/** `--server`, where the exposed address must be given. */
export const exposedServerOption = (): Option =>
  new Option(
    '--server <url>',
    'The exposed address, e.g. https://203.0.113.10:443.',
  ).makeOptionMandatory();

export const examples = (text: string): string => `\nExamples:\n${text}`;

const flagNamed = (command: Command, key: string): string | undefined =>
  command.options.find((option) => option.attributeName() === key)?.long;

/**
 * The flag that sets a library option (`metrics.port` → `--metrics-listen`): the verb's own,
 * else the flag of that option in another verb (check's report may say to render the manifests
 * with `externalAddress`); undefined when no flag sets it.
 */
export function flagOf(
  command: Command,
  option: string,
  fedBy: Verb['fedBy'] = {},
): string | undefined {
  const top = option.split(/[.[]/)[0] ?? option;
  return (
    flagNamed(command, fedBy[top] ?? top) ??
    command.parent?.commands.map((verb) => flagNamed(verb, top)).find((flag) => flag !== undefined)
  );
}

/** Runs a verb's library function with its flags' values, naming flags (not options) in what it refuses. */
export async function runVerb(
  command: Command,
  verb: Verb,
  values: Record<string, unknown>,
): Promise<Outcome> {
  const nameOf = (option: string) => flagOf(command, option, verb.fedBy);
  try {
    return await verb.run(values, (text) =>
      renameOptions(text, (option) => nameOf(option) ?? `\`${option}\``),
    );
  } catch (error) {
    if (!(error instanceof OptionsError)) throw error;
    const described = error.describe((option) => nameOf(option) ?? option);
    throw new CliError(`kfx expose-api ${command.name()}: ${described.join('; ')}`, EXIT.error);
  }
}

/** Flags kubectl users give before the group (`kfx -n x expose-api ...`) count too. */
const SHARED_WITH_GLOBALS = ['kubeconfig', 'context', 'namespace'] as const;

/** The action of a verb: runs it with its flags' values and writes what it returns. */
export function verbAction(verb: Verb) {
  return async function (this: Command): Promise<void> {
    const values: Record<string, unknown> = { ...this.opts() };
    const globals = this.optsWithGlobals<Record<string, unknown>>();
    const root = this.parent?.parent;
    for (const key of SHARED_WITH_GLOBALS) {
      const own = flagNamed(this, key) !== undefined;
      const unsetHere = this.getOptionValueSource(key) !== 'cli';
      if (own && unsetHere && root?.getOptionValueSource(key) === 'cli') values[key] = globals[key];
    }
    const outcome = await runVerb(this, verb, values);
    process.stdout.write(outcome.stdout);
    process.stderr.write(outcome.stderr);
    // kube-runtime's exit codes: 0 after the drain, 1 when it failed or a second signal forced it.
    if (outcome.run) process.exitCode = await outcome.run();
    if (outcome.failed) {
      throw new CliError(`expose-api ${this.name()} found a problem (see above)`, EXIT.testsFailed);
    }
  };
}
