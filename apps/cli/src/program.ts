// The `kfx` command tree. Each command group lives in its own module and is loaded only when the
// command line names it (or asks for shell completion, which needs them all): `kfx --help` and
// `kfx uat run --help` then load commander and the one group, not the Kubernetes client and
// every library behind the other groups. The help lists every group from this table, so a group's
// name, term and description live here once.
import { Command } from 'commander';
import { EXIT_CODES_HELP, throwInsteadOfExiting } from './cli-exit.js';
import { addGlobalOptions } from './cli-options.js';
import { VERSION } from './version.js';

interface CommandGroup {
  name: string;
  /** How the group reads in the root help's command list. */
  term: string;
  description: string;
  load(): Promise<Command>;
}

const COMMAND_GROUPS: readonly CommandGroup[] = [
  {
    name: 'uat',
    term: 'uat <command>',
    description: 'Run acceptance-test suites inside the cluster from CI.',
    load: async () => (await import('./commands/uat/uat.js')).uatCommand(),
  },
  {
    name: 'expose-api',
    term: 'expose-api <command>',
    description:
      'Expose the Kubernetes API to out-of-cluster compute (interLink plugins on Slurm/HPC) safely.',
    load: async () => (await import('./commands/expose-api/expose-api.js')).exposeApiCommand(),
  },
  {
    name: 'webhook',
    term: 'webhook <command>',
    description: 'Install-time helpers for kfx-webhook.',
    load: async () => (await import('./commands/webhook/webhook.js')).webhookCommand(),
  },
  {
    name: 'doctor',
    term: 'doctor [options]',
    description: 'Find what is wrong in a live kfx cluster, read-only, and how to fix it.',
    load: async () => (await import('./commands/doctor/doctor.js')).doctorCommand(),
  },
  {
    name: 'preview',
    term: 'preview [options] <file...>',
    description: 'Show what kfx-webhook would change in Pods, workloads and claims, offline.',
    load: async () => (await import('./commands/preview.js')).previewCommand(),
  },
  {
    name: 'demo',
    term: 'demo [options]',
    description: 'Run the kfx demo on an embedded local control plane.',
    load: async () => (await import('./commands/demo.js')).demoCommand(),
  },
  {
    name: 'completion',
    term: 'completion <shell>',
    description: 'Print a shell completion script (bash or zsh).',
    load: async () => (await import('./cli-completion.js')).completionCommand(),
  },
];

/**
 * The program for `argv`: every group the command line names is loaded, the others are listed
 * by name and description only. `argv` defaults to this process's; `all` loads every group.
 */
export async function buildProgram(
  argv: readonly string[] = process.argv,
  all = false,
): Promise<Command> {
  const program = addGlobalOptions(new Command('kfx'))
    .description('Make multi-tenant Kubeflow work in restricted environments.')
    .version(`kfx ${VERSION}`, '--version', 'print the version')
    .showHelpAfterError('(add --help for usage)')
    .addHelpText(
      'after',
      `
Examples:
  $ kfx uat run --image registry.corp/kubeflow-uats:1.9 --command "pytest tests/" --artifacts out/
  $ kfx uat rbac --service-account ci:uat-runner | kubectl apply -f -
  $ kfx expose-api manifests --external-address 203.0.113.10 | kubectl apply -f -
  $ kfx webhook manifests -n kfx-system --cert-manager kfx-system/kfx-webhook-serving
  $ kfx doctor                 what is wrong in the cluster, and the fix for each finding
  $ kfx preview pod.yaml --http-proxy http://proxy.corp:3128
  $ kfx demo                 run the local demo on an embedded control plane
  $ source <(kfx completion bash)

Global options (--kubeconfig, --context, -n, --log-level) go before or after the command.

${EXIT_CODES_HELP}`,
    );
  // A word may also be an option's value (`-n uat`): loading a group too many costs only time.
  const words = new Set(argv.slice(2));
  const everything = all || words.has('completion');
  const terms = new Map(COMMAND_GROUPS.map((g) => [g.name, g.term]));
  program.configureHelp({
    subcommandTerm: (command) => terms.get(command.name()) ?? command.name(),
  });
  for (const group of COMMAND_GROUPS) {
    const command =
      everything || words.has(group.name) ? await group.load() : new Command(group.name);
    program.addCommand(command.description(group.description));
  }
  throwInsteadOfExiting(program);
  return program;
}
