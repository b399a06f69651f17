// `kfx expose-api`: the verbs over the typed functions of @kfx/kube-api-exposer, one file each.
import { Command } from 'commander';
import { checkCommand } from './check.js';
import { envCommand } from './env.js';
import { KUBECONFIG_EXAMPLES, kubeconfigCommand } from './kubeconfig.js';
import { MANIFESTS_EXAMPLES, manifestsCommand } from './manifests.js';
import { serveCommand } from './serve.js';

export function exposeApiCommand(): Command {
  return new Command('expose-api')
    .addCommand(serveCommand())
    .addCommand(manifestsCommand())
    .addCommand(kubeconfigCommand())
    .addCommand(envCommand())
    .addCommand(checkCommand())
    .addHelpText(
      'after',
      `
The proxy forwards only /api, /apis, /version and /openapi, passes the caller's own token and
never adds credentials of its own; kubeconfig mints short-lived, bound tokens.

Examples:
${MANIFESTS_EXAMPLES}
${KUBECONFIG_EXAMPLES}`,
    );
}
