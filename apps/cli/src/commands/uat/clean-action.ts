// What `kfx uat clean` does once its flags are parsed, loaded only when it runs (the command's
// definition, clean.ts, stays light for --help).
import type { Command } from 'commander';
import {
  cleanLeftovers,
  isRunId,
  parseDuration,
  RUN_DEFAULTS,
  type LeftoverReport,
} from '@kfx/uat-runner';
import { CliError, EXIT } from '../../cli-exit.js';
import { cliLogger, kubeClient } from '../../cli-kube.js';
import { globalOptions } from '../../cli-options.js';

export interface CleanFlags {
  profile?: string | undefined;
  runId?: string | undefined;
  runnerRole: string;
  timeout: string;
  output: 'text' | 'json';
}

export async function clean(this: Command): Promise<void> {
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
