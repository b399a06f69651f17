// `kfx webhook certificate`: kfx-webhook's serving certificate where cert-manager does not run
// (a local cluster, a cluster whose certificates come from elsewhere). A new CA signs a
// certificate for the webhook Service's names; the certificate, its key and the CA go into the
// kubernetes.io/tls Secret the chart's `tls.mode: secret` mounts, and the CA into a file for the
// chart's `tls.caBundle`. The CA's key is never written anywhere: nothing else can be signed with
// it. An existing Secret is kept unless --overwrite says otherwise (the webhook configuration's
// caBundle names the old CA until the release is upgraded).
import { writeFile } from 'node:fs/promises';
import { Command } from 'commander';
import { CliError } from '../../cli-exit.js';
import { globalOptions } from '../../cli-options.js';

interface CertificateFlags {
  service: string;
  secret?: string;
  caFile: string;
  days: string;
  createNamespace?: boolean;
  overwrite?: boolean;
}

const FIELD_MANAGER = 'kfx-cli';

async function run(command: Command): Promise<void> {
  const flags = command.opts<CertificateFlags>();
  const global = globalOptions(command);
  const namespace = global.namespace ?? 'kfx-system';
  const days = Number(flags.days);
  if (!Number.isInteger(days) || days < 1 || days > 3650) {
    throw new CliError(`--days: expected a whole number 1-3650, got ${flags.days}`);
  }
  const secretName = flags.secret ?? `${flags.service}-tls`;
  const [{ createCertificateAuthority }, { getOrUndefined, resources }, { messageOf }, kube] =
    await Promise.all([
      import('@kfx/dev-certs'),
      import('@kfx/kube-runtime/client'),
      import('@kfx/kube-runtime/exit'),
      import('../../cli-kube.js'),
    ]);
  const client = kube.kubeClient(global, kube.cliLogger(global));
  try {
    if (!(await getOrUndefined(client, resources.namespaces, namespace))) {
      if (!flags.createNamespace) {
        throw new CliError(
          `namespace ${namespace} does not exist (--create-namespace makes it, as helm's does)`,
        );
      }
      await client.create(resources.namespaces, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: namespace },
      });
    }
    const existing = await getOrUndefined(client, resources.secrets, secretName, { namespace });
    if (existing && !flags.overwrite) {
      throw new CliError(
        `Secret ${namespace}/${secretName} exists: --overwrite replaces it (then upgrade the release with the new --ca-file, or the apiserver rejects the new certificate)`,
      );
    }
    const host = `${flags.service}.${namespace}.svc`;
    const ca = createCertificateAuthority({ commonName: `${host} webhook CA`, validityDays: days });
    const serving = ca.issue({
      commonName: host,
      dnsNames: [host, `${host}.cluster.local`],
      validityDays: days,
    });
    const b64 = (pem: string) => Buffer.from(pem).toString('base64');
    await client.apply(
      resources.secrets,
      {
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'kubernetes.io/tls',
        metadata: { name: secretName, namespace },
        data: { 'tls.crt': b64(serving.cert), 'tls.key': b64(serving.key), 'ca.crt': b64(ca.cert) },
      },
      { fieldManager: FIELD_MANAGER, force: true },
    );
    try {
      await writeFile(flags.caFile, ca.cert, { mode: 0o644 });
    } catch (error) {
      throw new CliError(`--ca-file: ${messageOf(error)}`);
    }
    const until = new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
    process.stdout.write(
      `Secret ${namespace}/${secretName}: a certificate for ${host} until ${until}, signed by a new CA (in ${flags.caFile}; its key was not kept).\n` +
        `Install the chart with: --set tls.mode=secret --set tls.secretName=${secretName} --set-file tls.caBundle=${flags.caFile}\n`,
    );
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(messageOf(error));
  } finally {
    client.close();
  }
}

export function certificateCommand(): Command {
  return new Command('certificate')
    .description(
      "Make kfx-webhook's serving certificate without cert-manager: a kubernetes.io/tls Secret for <service>.<namespace>.svc, and its CA in a file (the chart's tls.mode=secret).",
    )
    .requiredOption('--ca-file <pem>', 'where to write the CA (the chart’s tls.caBundle)')
    .option(
      '--service <name>',
      "the webhook's Service, in the namespace given with -n",
      'kfx-webhook',
    )
    .option('--secret <name>', 'the Secret to write (default: <service>-tls, the chart’s default)')
    .option('--days <n>', 'validity of the CA and the certificate (1-3650)', '365')
    .option('--create-namespace', 'make the namespace when it does not exist')
    .option('--overwrite', 'replace an existing Secret')
    .addHelpText(
      'after',
      `
Examples:
  $ kfx webhook certificate -n kfx-system --create-namespace --ca-file kfx-webhook-ca.crt
  $ helm install kfx-webhook apps/webhook/chart -n kfx-system --set tls.mode=secret --set-file tls.caBundle=kfx-webhook-ca.crt`,
    )
    .action(async function (this: Command) {
      await run(this);
    });
}
