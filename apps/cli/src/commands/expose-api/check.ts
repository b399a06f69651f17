// `kfx expose-api check`: from outside the cluster, TLS, authentication and permissions through the
// exposed address; exit code 1 when it finds a problem.
import { check } from '@kfx/kube-api-exposer';
import { Command } from 'commander';
import { contextOption, examples, verbAction, wholeNumber, type Verb } from './verb.js';

export const checkVerb: Verb = {
  async run(options, inText) {
    const result = await check(options);
    return { stdout: inText(result.text), stderr: '', failed: !result.ok };
  },
};

export function checkCommand(): Command {
  return new Command('check')
    .description(
      'From outside the cluster, verify TLS to the exposed address, authenticate with a token, and list what the identity may do.',
    )
    .option('--server <url>', 'The exposed address. Default: the server of --kubeconfig.')
    .option(
      '--ca-file <file>',
      "PEM CA clients are given. Default: the kubeconfig's CA, else the system trust store.",
    )
    .option('--token-file <file>', 'File holding the bearer token to check.')
    .option(
      '--token <token>',
      'The bearer token itself (prefer --token-file: command lines are visible to other users).',
    )
    .option(
      '--kubeconfig <file>',
      'Take server, CA and token from this kubeconfig (e.g. one written by kfx expose-api kubeconfig).',
    )
    .addOption(contextOption())
    .option(
      '--namespace <namespace>',
      "Namespace whose permissions are listed. Default: the token's service-account namespace, the kubeconfig's, else default.",
    )
    .option('--timeout <seconds>', 'Limit for each network step.', wholeNumber, 10)
    .option(
      '--interlink-config <namespace/name>',
      "interLink's ConfigMap or Secret holding its copy of the exposed CA (kubernetesApiCaCrt), read through the exposer with the checked token: does it verify the certificate served, and does it end within 30 days.",
    )
    .option(
      '--interlink-config-file <file>',
      "The same from a file: interLink's Helm values or its virtual kubelet's configuration.",
    )
    .addHelpText(
      'after',
      examples(
        `  $ kfx expose-api check --server https://203.0.113.10:6443 --ca-file ca.crt --token "$(cat token)"
  $ kfx expose-api check --kubeconfig slurm-plugin.kubeconfig --interlink-config-file interlink-values.yaml`,
      ),
    )
    .action(verbAction(checkVerb));
}
