// `kfx expose-api env`: the exposed address and its CA as a virtual-kubelet (interLink) reads them.
import { renderEnv, type RenderEnvOptions } from '@kfx/kube-api-exposer';
import { Command, Option } from 'commander';
import { contextOption, examples, exposedServerOption, verbAction, type Verb } from './verb.js';

export const envVerb: Verb = {
  async run(options) {
    const result = await renderEnv(options as RenderEnvOptions);
    return { stdout: result.text, stderr: '' };
  },
};

export function envCommand(): Command {
  return new Command('env')
    .description(
      'Print the KUBERNETES_SERVICE_HOST/PORT variables and CA of the exposed address for a virtual-kubelet (interLink kubernetesApiAddr/Port/CaCrt).',
    )
    .addOption(exposedServerOption())
    .option('--ca-file <file>', "PEM CA of the exposed address's certificate.")
    .option(
      '--ca-secret <namespace/name>',
      'Read the CA from the ca.crt key of this Secret (e.g. kfx-system/kfx-expose-api-tls).',
    )
    .addOption(
      new Option(
        '--format <format>',
        'env: shell variables; virtual-kubelet: KubernetesApiAddr/Port/CaCrt; helm-values: interlink.kubernetesApi* values; json: everything.',
      )
        .choices(['env', 'virtual-kubelet', 'helm-values', 'json'])
        .default('env'),
    )
    .option('--kubeconfig <file>', 'Credentials to read --ca-secret with.')
    .addOption(contextOption())
    .addHelpText(
      'after',
      examples(
        `  $ kfx expose-api env --server https://203.0.113.10:6443 --ca-secret kfx-system/kfx-expose-api-ca`,
      ),
    )
    .action(verbAction(envVerb));
}
