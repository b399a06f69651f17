// `kfx webhook`: install-time helpers for kfx-webhook.
import { Command } from 'commander';
import { certificateCommand } from './certificate.js';
import { manifestsCommand } from './manifests.js';

export function webhookCommand(): Command {
  return new Command('webhook')
    .addCommand(manifestsCommand())
    .addCommand(certificateCommand())
    .addHelpText(
      'after',
      `
Examples:
  $ kfx webhook manifests -n kfx-system --cert-manager kfx-system/kfx-webhook-serving | kubectl apply -f -
  $ kfx webhook certificate -n kfx-system --create-namespace --ca-file kfx-webhook-ca.crt`,
    );
}
