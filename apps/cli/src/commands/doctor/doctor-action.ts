// What `kfx doctor` does once its flags are parsed, loaded only when it runs (doctor.ts stays
// light for --help): diagnose with @kfx/doctor, print the table or the JSON report, and exit 0,
// 1 (errors found) or 2 (no access, or a check could not finish).
import { AccessError, diagnose, reportExitCode, type CheckName } from '@kfx/doctor';
import type { Command } from 'commander';
import { CliError, EXIT } from '../../cli-exit.js';
import { cliLogger, kubeClient } from '../../cli-kube.js';
import { allNamespaces, globalOptions } from '../../cli-options.js';
import { renderTable } from './table.js';

interface DoctorFlags {
  output: 'table' | 'json';
  check?: CheckName[] | undefined;
  concurrency: number;
}

/** `a,b` and repeated `-n` both name several namespaces. */
function namespacesOf(command: Command): string[] {
  const names = allNamespaces(command).flatMap((value) => value.split(','));
  const bad = names.find((name) => !/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(name));
  if (bad !== undefined) throw new CliError(`-n/--namespace: "${bad}" is not a namespace name`);
  return [...new Set(names)];
}

export async function doctor(this: Command): Promise<void> {
  const flags = this.opts<DoctorFlags>();
  const globals = globalOptions(this);
  const namespaces = namespacesOf(this);
  const client = kubeClient(globals, cliLogger(globals));
  const interrupt = new AbortController();
  const stop = () => {
    interrupt.abort(new CliError('interrupted', EXIT.interrupted));
  };
  process.once('SIGINT', stop);
  try {
    const report = await diagnose(client, {
      namespaces,
      checks: flags.check,
      concurrency: flags.concurrency,
      signal: interrupt.signal,
    });
    process.stdout.write(
      flags.output === 'json'
        ? `${JSON.stringify(report, null, 2)}\n`
        : renderTable(report, process.stdout.isTTY && process.env.NO_COLOR === undefined),
    );
    process.exitCode = reportExitCode(report);
  } catch (error) {
    if (error instanceof AccessError) throw new CliError(error.message, EXIT.error);
    throw error;
  } finally {
    process.off('SIGINT', stop);
    client.close();
  }
}
