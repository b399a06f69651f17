// `kfx expose-api`: the @kfx/kube-api-exposer subcommands, turned into flags from the package's
// own option descriptions, so the CLI holds no logic of its own and every flag stays documented
// in one place.
import {
  EXPOSE_API_COMMANDS,
  parseOptionValue,
  runExposeApi,
  type CommandSpec,
  type OptionSpec,
} from '@kfx/kube-api-exposer';
import { Command, Option } from 'commander';
import { CliError, EXIT } from '../cli-exit.js';
import { CLI_IMAGE } from '../version.js';

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

function toOption(spec: OptionSpec): Option {
  const option = new Option(spec.flag, spec.description);
  const fallback = spec.default ?? CLI_DEFAULTS[spec.name];
  if (fallback !== undefined && spec.kind !== 'boolean') option.default(fallback);
  if (spec.choices) option.choices(spec.choices);
  if (spec.kind === 'integer') option.argParser((raw: string) => parseOptionValue(spec, raw));
  if (spec.required) option.makeOptionMandatory();
  return option;
}

function subcommand(spec: CommandSpec): Command {
  const command = new Command(spec.name).description(spec.summary);
  for (const option of spec.options) command.addOption(toOption(option));
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
    const outcome = await runExposeApi(spec.name, options);
    process.stdout.write(outcome.stdout);
    process.stderr.write(outcome.stderr);
    if (outcome.running) await outcome.running.closed;
    if (outcome.exitCode !== 0) {
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
