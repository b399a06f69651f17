// `kfx webhook manifests`: the MutatingWebhookConfiguration that sends Pods and claims to
// kfx-webhook, for clusters that install the webhook without the Helm chart (or run it outside
// the cluster). The rules and opt-outs come from the packages; the safe defaults (v1 reviews, no
// side effects, kube-system and the webhook's namespace excluded) from admission-core.
import { readFile } from 'node:fs/promises';
import { renderWebhookConfiguration, type WebhookRegistration } from '@kfx/admission-core';
import {
  PROXY_INJECTOR_NAME,
  PROXY_INJECTOR_PATH,
  proxyInjectorRegistration,
} from '@kfx/proxy-injector';
import { PVC_REWRITER_NAME, PVC_REWRITER_PATH, pvcRewriterRegistration } from '@kfx/pvc-rewriter';
import { Command } from 'commander';
import { stringify } from 'yaml';
import { messageOf } from '@kfx/kube-runtime/serving';
import { CliError } from '../../cli-exit.js';
import { globalOptions } from '../../cli-options.js';

interface ManifestFlags {
  name: string;
  service: string;
  url?: string;
  caFile?: string;
  certManager?: string;
  only?: string;
  timeoutSeconds: string;
  excludeNamespace: string[];
}

const HANDLERS = ['proxy-injector', 'pvc-rewriter'] as const;

function registrations(only: string | undefined, timeoutSeconds: number): WebhookRegistration[] {
  const chosen = only === undefined ? [...HANDLERS] : only.split(',').map((s) => s.trim());
  for (const name of chosen) {
    if (!(HANDLERS as readonly string[]).includes(name)) {
      throw new CliError(`--only: "${name}" is not one of ${HANDLERS.join(', ')}`);
    }
  }
  const out: WebhookRegistration[] = [];
  if (chosen.includes('proxy-injector')) {
    out.push(
      proxyInjectorRegistration(
        {
          name: PROXY_INJECTOR_NAME,
          path: PROXY_INJECTOR_PATH,
          type: 'mutating',
          failureMode: 'admit',
        },
        { timeoutSeconds },
      ),
    );
  }
  if (chosen.includes('pvc-rewriter')) {
    out.push(
      pvcRewriterRegistration(
        {
          name: PVC_REWRITER_NAME,
          path: PVC_REWRITER_PATH,
          type: 'mutating',
          failureMode: 'admit',
        },
        { timeoutSeconds },
      ),
    );
  }
  return out;
}

export function manifestsCommand(): Command {
  return new Command('manifests')
    .description('Print the MutatingWebhookConfiguration for kfx-webhook (YAML).')
    .option('--name <name>', 'name of the configuration object', 'kfx-webhook')
    .option(
      '--service <name>',
      "the webhook's Service, in the namespace given with -n",
      'kfx-webhook',
    )
    .option(
      '--url <https-url>',
      'base URL of a webhook running outside the cluster instead of --service',
    )
    .option(
      '--ca-file <pem>',
      "CA that signed the webhook's serving certificate (becomes caBundle)",
    )
    .option(
      '--cert-manager <namespace/certificate>',
      "let cert-manager's cainjector fill the caBundle from this Certificate",
    )
    .option('--only <names>', `comma-separated subset of ${HANDLERS.join(', ')}`)
    .option('--timeout-seconds <n>', 'how long the apiserver waits for an answer (1-30)', '5')
    .option('--exclude-namespace <name...>', 'more namespaces never sent to the webhook', [])
    .addHelpText(
      'after',
      `
The webhook's own namespace (-n, default kfx-system) and kube-system are always excluded, and a
namespace labelled proxy-injector.kfx.dev/inject=false opts out of proxy injection.

Examples:
  $ kfx webhook manifests -n kfx-system --cert-manager kfx-system/kfx-webhook-serving | kubectl apply -f -
  $ kfx webhook manifests --url https://10.0.0.5:8443 --ca-file ca.crt --only pvc-rewriter`,
    )
    .action(async function (this: Command) {
      const flags = this.opts<ManifestFlags>();
      const namespace = globalOptions(this).namespace ?? 'kfx-system';
      const timeoutSeconds = Number(flags.timeoutSeconds);
      if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1 || timeoutSeconds > 30) {
        throw new CliError(
          `--timeout-seconds: expected a whole number 1-30, got ${flags.timeoutSeconds}`,
        );
      }
      if (flags.caFile !== undefined && flags.certManager !== undefined) {
        throw new CliError('give --ca-file or --cert-manager, not both');
      }
      let caBundle: string | undefined;
      if (flags.caFile !== undefined) {
        try {
          caBundle = await readFile(flags.caFile, 'utf8');
        } catch (error) {
          throw new CliError(`--ca-file: ${messageOf(error)}`);
        }
      }
      try {
        const configuration = renderWebhookConfiguration({
          kind: 'mutating',
          name: flags.name,
          namespace,
          webhooks: registrations(flags.only, timeoutSeconds),
          ...(flags.url === undefined ? { service: { name: flags.service } } : { url: flags.url }),
          ...(caBundle === undefined ? {} : { caBundle }),
          ...(flags.certManager === undefined ? {} : { certManagerInjectFrom: flags.certManager }),
          excludeNamespaces: flags.excludeNamespace,
        });
        process.stdout.write(stringify(configuration, { lineWidth: 0 }));
      } catch (error) {
        if (error instanceof CliError) throw error;
        throw new CliError(messageOf(error));
      }
    });
}
