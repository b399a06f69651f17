// `kfx expose-api manifests`: the proxy's Deployment, Service or Ingress and Certificate, as YAML
// or a Helm chart; the proxy Pods run this CLI's own image.
import {
  DEFAULT_ALLOWED_PREFIXES,
  renderManifests,
  type RenderManifestsOptions,
} from '@kfx/kube-api-exposer';
import { Command, Option } from 'commander';
import { CLI_IMAGE } from '../../version.js';
import { examples, verbAction, wholeNumber, type Verb } from './verb.js';

export const MANIFESTS_EXAMPLES = `  $ kfx expose-api manifests --external-address 203.0.113.10 | kubectl apply -f -
  $ kfx expose-api manifests --external-address api.hpc.example.org --expose ingress --format helm --output chart/
  $ kfx expose-api manifests --external-address 203.0.113.10 --expose nodeport --remote-node interlink-slurm --remote-namespace hpc-jobs`;

export const manifestsVerb: Verb = {
  fedBy: { remoteNodes: 'remoteNode', remoteNamespaces: 'remoteNamespace' },
  async run(values) {
    const { remoteNode, remoteNamespace, ...options } = values;
    if (remoteNode !== undefined) options.remoteNodes = remoteNode;
    if (remoteNamespace !== undefined) options.remoteNamespaces = remoteNamespace;
    const result = await renderManifests(options as RenderManifestsOptions);
    return {
      stdout: result.written.length === 0 ? (result.yaml ?? '') : '',
      stderr: result.written.map((path) => `wrote ${path}\n`).join(''),
    };
  },
};

export function manifestsCommand(): Command {
  return new Command('manifests')
    .description(
      'Render the proxy’s Deployment, Service or Ingress, and cert-manager Certificate for the external address, as YAML or a Helm chart.',
    )
    .addOption(
      new Option(
        '--external-address <address...>',
        'IP addresses and DNS names clients use to reach the proxy; all go into the certificate.',
      ).makeOptionMandatory(),
    )
    .option('--name <name>', 'Name of every object (and the Helm release).', 'kfx-expose-api')
    .option(
      '--namespace <namespace>',
      'Namespace of the objects (YAML output; Helm uses the release namespace).',
      'kfx-system',
    )
    .option(
      '--image <image>',
      'Container image whose entrypoint is the kfx CLI (required; the kfx CLI passes its own image, kfx/cli:<its version>).',
      CLI_IMAGE,
    )
    .option(
      '--replicas <n>',
      'Proxy Pods; more than one adds a PodDisruptionBudget and spreads them over nodes.',
      wholeNumber,
      2,
    )
    .addOption(
      new Option(
        '--expose <how>',
        'How clients reach the proxy: a LoadBalancer or NodePort Service (TLS straight to the proxy), or an ingress-nginx Ingress.',
      )
        .choices(['loadbalancer', 'nodeport', 'ingress'])
        .default('loadbalancer'),
    )
    .option('--port <port>', 'The Service port clients connect to.', wholeNumber, 443)
    .option(
      '--node-port <port>',
      'Pin the NodePort (30000-32767) with --expose nodeport.',
      wholeNumber,
    )
    .option(
      '--ingress-class <class>',
      'ingressClassName with --expose ingress (e.g. a second, internal ingress-nginx).',
      'nginx',
    )
    .option(
      '--issuer <kind/name>',
      'Use an existing cert-manager issuer (Issuer/NAME or ClusterIssuer/NAME) instead of rendering a self-signed CA.',
    )
    .option(
      '--ca-duration <duration>',
      'Lifetime of the self-signed CA (cert-manager renews it at two thirds, keeping its key).',
      '17520h',
    )
    .option('--cert-duration <duration>', 'Lifetime of the serving certificate.', '2160h')
    .option(
      '--renew-before <duration>',
      'Renew the serving certificate this long before it expires; the proxy reloads it in place.',
      '720h',
    )
    .option('--allow-path <prefix...>', 'Path prefixes the proxy forwards.', [
      ...DEFAULT_ALLOWED_PREFIXES,
    ])
    .option(
      '--no-upgrades',
      'Make the proxy refuse exec, attach, port-forward and WebSocket upgrades.',
    )
    .option(
      '--remote-node <name...>',
      "Remote nodes (interLink's virtual nodes) whose Pods' tokens come in, exchanged for short-lived ones (serve's --remote-node); needs --remote-namespace.",
    )
    .option(
      '--remote-namespace <namespace...>',
      'Namespaces of the remote workloads: the proxy may read Pods and request tokens there (a Role and RoleBinding in each), and nowhere else.',
    )
    .option(
      '--interlink-config <namespace/name>',
      "interLink's ConfigMap or Secret whose copy of the CA the proxy compares with what it serves (serve's --interlink-config); the proxy may read that one object.",
    )
    .option(
      '--tls-secret <name>',
      'Serve the certificate of this existing Secret in the namespace (tls.crt, tls.key and ca.crt, the certificate naming every --external-address) instead of rendering cert-manager objects.',
    )
    .addOption(
      new Option(
        '--format <format>',
        'yaml: one stream to kubectl apply; helm: a chart directory (needs --output).',
      )
        .choices(['yaml', 'helm'])
        .default('yaml'),
    )
    .option(
      '--output <path>',
      'File (yaml) or directory (helm) to write; yaml goes to stdout without it.',
    )
    .addHelpText('after', examples(MANIFESTS_EXAMPLES))
    .action(verbAction(manifestsVerb));
}
