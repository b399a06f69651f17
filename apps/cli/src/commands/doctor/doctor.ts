// `kfx doctor`: what is wrong in a live kfx cluster and how to fix it, read-only (lists, gets
// and server-side dry-runs). The checks are @kfx/doctor's; this file is the command's
// definition only (light, for --help); doctor-action.ts runs it.
import { Command, InvalidArgumentError, Option } from 'commander';

/** The checks, as `@kfx/doctor` names them (kept here so that --help loads no Kubernetes code). */
export const CHECK_NAMES = [
  'kubernetes',
  'webhook',
  'injection',
  'no-proxy',
  'rwx-claims',
  'profiles',
  'controller',
  'exposer',
] as const;

export const DOCTOR_EXAMPLES = `Examples:
  $ kfx doctor                               every check, every Profile namespace probed
  $ kfx doctor -n ci-tests -n team-x         …and these namespaces too
  $ kfx doctor --context prod -o json | jq '.findings[] | select(.severity == "error")'
  $ kfx doctor --check webhook --check injection`;

export function doctorCommand(): Command {
  return new Command('doctor')
    .description(
      'Find what is wrong in a live kfx cluster, read-only, and say how to fix it: one finding per line.',
    )
    .addOption(
      new Option('-o, --output <format>', 'table: one finding per line; json: the report')
        .choices(['table', 'json'])
        .default('table'),
    )
    .addOption(new Option('--check <name...>', 'run only these checks').choices(CHECK_NAMES))
    .addOption(
      new Option('--concurrency <n>', 'API requests at once (probe Pods, reads)')
        .default(16)
        .argParser(positive),
    )
    .addHelpText(
      'after',
      `
Checks (each finding names its check):
  kubernetes  the version inside kfx's range (1.30 to 1.37); what this minor lacks
  webhook     kfx-webhook's configuration; its caBundle against the certificate it serves
              (through the API server's service proxy), days left, ready endpoints,
              failurePolicy, the namespaces it skips
  injection   a probe Pod, dry-run in each Profile namespace and each -n: does it get the proxy
              variables (and the CA bundle)? If not, why
  no-proxy    NO_PROXY against the service and pod ranges, the kubernetes Service, the cloud
              metadata endpoints, the Kubeflow and Profile namespaces; guessed ranges
  rwx-claims  a dry-run ReadWriteMany claim lands on a StorageClass that exists
  profiles    not reconciled; stuck deleting (which finalizer); KFAM's binding annotations;
              a quota the LimitRange's defaults exceed; Pod Security against the Istio mode
  controller  a fresh leader Lease; Profiles waiting (ControllerFull); maxProfiles
  exposer     kfx expose-api's serving certificate and CA days left

It writes nothing: Pods and claims are sent with dryRun=All. It needs the rights of the
ClusterRole the controller chart installs with doctor.enabled=true (docs/doctor/rights.md);
without one it names the missing right and exits 2.

${DOCTOR_EXAMPLES}

Exit codes: 0 no error (warnings and notes allowed), 1 at least one error, 2 bad usage, no
access (the missing right is named), or a check could not finish.`,
    )
    .action(async function (this: Command) {
      await (await import('./doctor-action.js')).doctor.call(this);
    });
}

function positive(raw: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 64) {
    throw new InvalidArgumentError('Expected a whole number from 1 to 64.');
  }
  return value;
}
