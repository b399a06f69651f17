// `kfx expose-api kubeconfig`: a short-lived token for a service account, in a kubeconfig for
// the exposed address.
import { mintKubeconfig, type MintKubeconfigOptions } from '@kfx/kube-api-exposer';
import { Command, Option } from 'commander';
import {
  contextOption,
  examples,
  exposedServerOption,
  verbAction,
  wholeNumber,
  type Verb,
} from './verb.js';

export const KUBECONFIG_EXAMPLES = `  $ kfx expose-api kubeconfig --service-account interlink/slurm-plugin --server https://203.0.113.10:6443 \\
      --ca-secret kfx-system/kfx-expose-api-ca --output slurm.kubeconfig`;

export const kubeconfigVerb: Verb = {
  async run(options, inText) {
    const result = await mintKubeconfig(options as MintKubeconfigOptions);
    const { token } = result;
    const notes = [
      ...result.warnings.map((warning) => `warning: ${inText(warning)}`),
      `token valid until ${token.expirationTimestamp}${token.boundTo === undefined ? '' : `, bound to Pod ${token.boundTo}`}`,
      ...(result.written === undefined ? [] : [`wrote ${result.written}`]),
    ];
    return {
      stdout: result.written === undefined ? result.kubeconfig : '',
      stderr: notes.map((line) => `${line}\n`).join(''),
    };
  },
};

export function kubeconfigCommand(): Command {
  return new Command('kubeconfig')
    .description(
      'Mint a short-lived token for a service account (TokenRequest API) and write a kubeconfig for the exposed address.',
    )
    .addOption(
      new Option(
        '--service-account <namespace/name>',
        'The service account whose identity the kubeconfig carries.',
      ).makeOptionMandatory(),
    )
    .addOption(exposedServerOption())
    .option(
      '--ca-file <file>',
      "PEM CA of the exposed address's certificate, embedded in the kubeconfig.",
    )
    .option(
      '--ca-secret <namespace/name>',
      "Read that CA from the ca.crt key of this Secret instead (the proxy's cert-manager Certificate, e.g. kfx-system/kfx-expose-api-tls).",
    )
    .option(
      '--audience <audience...>',
      "Audiences of the token. Default: the apiserver's own (--api-audiences).",
    )
    .option(
      '--expiration <seconds>',
      'Requested token lifetime (at least 600; the apiserver may cap it).',
      wholeNumber,
      3600,
    )
    .option(
      '--pod <name>',
      "Bind the token to this Pod (in the service account's namespace): it stops working when the Pod is deleted.",
    )
    .option(
      '--output <file>',
      'Write the kubeconfig here (mode 0600, replaced atomically) instead of printing it.',
    )
    .option(
      '--token-file <file>',
      'Write the token to this file (mode 0600) and have the kubeconfig refer to it: running the command again refreshes the token under running clients.',
    )
    .option(
      '--kubeconfig <file>',
      'Credentials used to mint the token (needs create on serviceaccounts/token). Default: KUBECONFIG, ~/.kube/config, in-cluster.',
    )
    .addOption(contextOption())
    .addHelpText('after', examples(KUBECONFIG_EXAMPLES))
    .action(verbAction(kubeconfigVerb));
}
