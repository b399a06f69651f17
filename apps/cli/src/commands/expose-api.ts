// `kfx expose-api`: the flags of expose-api-flags.ts over the typed functions of
// @kfx/kube-api-exposer. The library names a value it refuses or cannot use by its option
// (`port`), and other options in its texts in backquotes; the user is told the flag (`--listen`),
// through `flagOf`, and every problem is exit code 2 (1 is kept for a check that failed).
import {
  check,
  mintKubeconfig,
  OptionsError,
  renameOptions,
  renderEnv,
  renderManifests,
  serve,
  type MintKubeconfigOptions,
  type RenderEnvOptions,
  type RenderManifestsOptions,
  type ServeOptions,
} from '@kfx/kube-api-exposer';
import { Command, Option } from 'commander';
import { CliError, EXIT } from '../cli-exit.js';
import { CLI_IMAGE } from '../version.js';
import {
  EXPOSE_API_COMMANDS,
  flagName,
  flagOf,
  toLibraryOptions,
  type CommandSpec,
  type FlagSpec,
} from './expose-api-flags.js';

const EXAMPLES: Record<string, string> = {
  serve: `  $ kfx expose-api serve --listen 0.0.0.0:6443 --tls-cert tls.crt --tls-key tls.key
  $ kfx expose-api serve --listen 127.0.0.1:6443 --tls-cert tls.crt --tls-key tls.key --kubeconfig ~/.kube/config`,
  manifests: `  $ kfx expose-api manifests --external-address 203.0.113.10 | kubectl apply -f -
  $ kfx expose-api manifests --external-address api.hpc.example.org --expose ingress --format helm --output chart/`,
  kubeconfig: `  $ kfx expose-api kubeconfig --service-account interlink/slurm-plugin --server https://203.0.113.10:6443 \\
      --ca-secret kfx-system/kfx-expose-api-ca --output slurm.kubeconfig`,
  env: `  $ kfx expose-api env --server https://203.0.113.10:6443 --ca-secret kfx-system/kfx-expose-api-ca`,
  check: `  $ kfx expose-api check --server https://203.0.113.10:6443 --ca-file ca.crt --token "$(cat token)"`,
};

/** Defaults only the CLI knows: the proxy Pods run this CLI's own image. */
const CLI_DEFAULTS: Record<string, string> = { image: CLI_IMAGE };

/** Flags kubectl users give before the subcommand (`kfx -n x expose-api ...`) count too. */
const SHARED_WITH_GLOBALS = ['kubeconfig', 'context', 'namespace'] as const;

/** Integer flags: the text must be a whole number. */
function wholeNumber(command: CommandSpec, spec: FlagSpec) {
  return (raw: string): number => {
    if (!/^-?\d+$/.test(raw.trim())) {
      throw new CliError(
        `kfx expose-api ${command.name}: ${flagName(spec)}: expected a whole number, got ${JSON.stringify(raw)}`,
      );
    }
    return Number(raw);
  };
}

function toOption(command: CommandSpec, spec: FlagSpec): Option {
  const option = new Option(spec.flag, spec.description);
  const fallback = spec.default ?? CLI_DEFAULTS[spec.name];
  if (fallback !== undefined && spec.kind !== 'boolean') option.default(fallback);
  if (spec.choices) option.choices(spec.choices);
  if (spec.kind === 'integer') option.argParser(wholeNumber(command, spec));
  if (spec.required) option.makeOptionMandatory();
  return option;
}

const lines = (items: readonly string[]) => items.map((line) => `${line}\n`).join('');

interface Outcome {
  stdout: string;
  /** Notes for a person (files written, warnings). */
  stderr: string;
  /** `check` found a problem. */
  failed?: boolean;
  /** `serve`: serves until SIGTERM/SIGINT, drains, and resolves with the exit code. */
  run?: () => Promise<number>;
}

/** Runs the library function of `command` with options it validates itself. */
async function runSubcommand(
  command: CommandSpec,
  options: Record<string, unknown>,
): Promise<Outcome> {
  const inText = (text: string) =>
    renameOptions(text, (option) => flagOf(command, option) ?? `\`${option}\``);
  switch (command.name) {
    case 'serve': {
      const running = await serve(options as ServeOptions);
      return { stdout: '', stderr: '', run: () => running.run() };
    }
    case 'manifests': {
      const result = await renderManifests(options as RenderManifestsOptions);
      return {
        stdout: result.written.length === 0 ? (result.yaml ?? '') : '',
        stderr: lines(result.written.map((path) => `wrote ${path}`)),
      };
    }
    case 'kubeconfig': {
      const result = await mintKubeconfig(options as MintKubeconfigOptions);
      const { token } = result;
      const notes = [
        ...result.warnings.map((warning) => `warning: ${inText(warning)}`),
        `token valid until ${token.expirationTimestamp}${token.boundTo === undefined ? '' : `, bound to Pod ${token.boundTo}`}`,
        ...(result.written === undefined ? [] : [`wrote ${result.written}`]),
      ];
      return {
        stdout: result.written === undefined ? result.kubeconfig : '',
        stderr: lines(notes),
      };
    }
    case 'env': {
      const result = await renderEnv(options as RenderEnvOptions);
      return { stdout: result.text, stderr: '' };
    }
    default: {
      const result = await check(options);
      return { stdout: inText(result.text), stderr: '', failed: !result.ok };
    }
  }
}

/** Runs a subcommand with its flags' values, naming flags (not options) in what it refuses. */
export async function runExposeApi(
  command: CommandSpec,
  values: Record<string, unknown>,
): Promise<Outcome> {
  const { options, problems } = toLibraryOptions(command, values);
  if (problems.length > 0)
    throw new CliError(`kfx expose-api ${command.name}: ${problems.join('; ')}`);
  try {
    return await runSubcommand(command, options);
  } catch (error) {
    if (!(error instanceof OptionsError)) throw error;
    const described = error.describe((option) => flagOf(command, option) ?? option);
    throw new CliError(`kfx expose-api ${command.name}: ${described.join('; ')}`, EXIT.error);
  }
}

function subcommand(spec: CommandSpec): Command {
  const command = new Command(spec.name).description(spec.summary);
  for (const option of spec.options) command.addOption(toOption(spec, option));
  const examples = EXAMPLES[spec.name];
  if (examples) command.addHelpText('after', `\nExamples:\n${examples}`);
  return command.action(async function (this: Command) {
    const options: Record<string, unknown> = { ...this.opts() };
    const globals = this.optsWithGlobals<Record<string, unknown>>();
    for (const key of SHARED_WITH_GLOBALS) {
      const own = spec.options.some((o) => o.name === key);
      const unsetHere = this.getOptionValueSource(key) !== 'cli';
      const root = this.parent?.parent;
      if (own && unsetHere && root?.getOptionValueSource(key) === 'cli')
        options[key] = globals[key];
    }
    const outcome = await runExposeApi(spec, options);
    process.stdout.write(outcome.stdout);
    process.stderr.write(outcome.stderr);
    // kube-runtime's exit codes: 0 after the drain, 1 when it failed or a second signal forced it.
    if (outcome.run) process.exitCode = await outcome.run();
    if (outcome.failed) {
      throw new CliError(`expose-api ${spec.name} found a problem (see above)`, EXIT.testsFailed);
    }
  });
}
export function exposeApiCommand(): Command {
  const group = new Command('expose-api').addHelpText(
    'after',
    `
The proxy forwards only /api, /apis, /version and /openapi, passes the caller's own token and
never adds credentials of its own; kubeconfig mints short-lived, bound tokens.

Examples:
${EXAMPLES.manifests ?? ''}
${EXAMPLES.kubeconfig ?? ''}`,
  );
  for (const spec of EXPOSE_API_COMMANDS) group.addCommand(subcommand(spec));
  return group;
}
