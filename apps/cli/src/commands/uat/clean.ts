// `kfx uat clean`: removes what dead `kfx uat run`s left in a Profile or namespace (a runner
// killed outright, a CI machine that vanished) — runs past their deadline, or the one run named
// with --run-id — and spares every run that may still be going on in another CI job.
import { Command, Option } from 'commander';
import { formatDuration, RUN_DEFAULTS } from '@kfx/uat-runner/options';

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
    .action(async function (this: Command) {
      await (await import('./clean-action.js')).clean.call(this);
    });
}
