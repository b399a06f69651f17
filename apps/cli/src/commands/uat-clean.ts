// `kfx uat clean`: removes what dead `kfx uat run`s left in a Profile or namespace (a runner
// killed outright, a CI machine that vanished) — runs past their deadline, or the one run named
// with --run-id — and spares every run that may still be going on in another CI job.
import { Command, Option } from 'commander';
import {
  cleanLeftovers,
  formatDuration,
  isRunId,
  parseDuration,
  RUN_DEFAULTS,
  type LeftoverReport,
} from '@kfx/uat-runner';
import { CliError, EXIT } from '../cli-exit.js';
import { cliLogger, globalOptions, kubeClient } from '../cli-kube.js';

interface CleanFlags {
  profile?: string | undefined;
  runId?: string | undefined;
  runnerRole: string;
  timeout: string;
  output: 'text' | 'json';
}

export function uatCleanCommand(): Command {
  return new Command('clean')
    .description('Remove what dead `kfx uat run`s left behind, sparing runs that may be alive.')
    .option(
      '--profile <name>',
      `the runs' Profile and namespace (default: ${RUN_DEFAULTS.profile})`,
    )
    .option('--run-id <id>', 'remove this run whatever its deadline (its process is known dead)')
    .option(
      '--runner-role <name>',
      'ClusterRole to bind to itself in the namespace when it lacks rights there',
      RUN_DEFAULTS.runnerRole,
    )
    .option(
      '--timeout <duration>',
      'for what is deleted to be gone',
      formatDuration(RUN_DEFAULTS.cleanupTimeoutMs),
    )
    .addOption(
      new Option('-o, --output <format>', 'text: one line per object; json: the report')
        .choices(['text', 'json'])
        .default('text'),
    )
    .addHelpText(
      'after',
      `
Examples:
  $ kfx uat clean
  $ kfx uat clean --profile uat-ci --run-id k3x9a
  $ kfx -n ci-tests uat clean --output json

A run is dead once its deadline has passed: every object a run makes carries it
(uat.kfx.dev/expires: start + 2 x (--profile-timeout + --cleanup-timeout) + --timeout + 15m).
Jobs and Secrets of dead runs go; the Profile and a namespace the runner made go too when no
run that may still be alive is in them. Runs kept with --keep are removed only by --run-id.

Exit codes: 0 when nothing of a dead run is left (live runs spared), 2 otherwise.`,
    )
    .action(clean);
}

async function clean(this: Command): Promise<void> {
  const flags = this.opts<CleanFlags>();
  const globals = globalOptions(this);
  if (flags.profile !== undefined && globals.namespace !== undefined) {
    throw new CliError('--profile and -n/--namespace exclude each other');
  }
  if (flags.runId !== undefined && !isRunId(flags.runId)) {
    throw new CliError(`--run-id: "${flags.runId}" is not a valid run id`);
  }
  const timeoutMs = parseDuration(flags.timeout, '--timeout');
  const profile = flags.profile ?? RUN_DEFAULTS.profile;
  const where = globals.namespace === undefined ? { profile } : { namespace: globals.namespace };
  const client = kubeClient(globals, cliLogger(globals));
  try {
    const report = await cleanLeftovers({
      client,
      ...where,
      runId: flags.runId,
      runnerRole: flags.runnerRole,
      timeoutMs,
    });
    process.stdout.write(
      flags.output === 'json'
        ? `${JSON.stringify(report)}\n`
        : textReport(report, globals.namespace ?? `Profile ${profile}`),
    );
    process.exitCode = report.leftovers.length > 0 ? EXIT.error : EXIT.ok;
  } finally {
    client.close();
  }
}

function textReport(report: LeftoverReport, where: string): string {
  const lines = [
    ...report.deleted.map((text) => `Deleted ${text}`),
    ...report.spared.map((text) => `Spared ${text}`),
    ...report.leftovers.map((text) => `Could not delete ${text}`),
  ];
  if (lines.length === 0) lines.push(`Nothing of a kfx uat run in ${where}.`);
  return `${lines.join('\n')}\n`;
}
