// `kfx expose-api kubeconfig`: a kubeconfig for the exposed address with a freshly minted,
// short-lived, bound service-account token, for an interLink plugin or a person.
import type { KubeClient } from '@kfx/kube-runtime';
import { resolve } from 'node:path';
import { z } from 'zod';
import { readCaPem } from '../token/ca-source.js';
import { kubeconfigYaml, writePrivateFile } from '../token/kubeconfig-yaml.js';
import { mintToken, type MintedToken } from '../token/token-request.js';
import { withAdminClient } from './admin-client.js';
import { validateOptions, type CommandSpec } from './option-spec.js';
import { caSourceFields, httpsUrl, namespacedName, objectName, notBoth } from './values.js';

export const kubeconfigCommand: CommandSpec = {
  name: 'kubeconfig',
  summary:
    'Mint a short-lived token for a service account (TokenRequest API) and write a kubeconfig for the exposed address.',
  options: [
    {
      name: 'serviceAccount',
      flag: '--service-account <namespace/name>',
      kind: 'string',
      required: true,
      description: 'The service account whose identity the kubeconfig carries.',
    },
    {
      name: 'server',
      flag: '--server <url>',
      kind: 'string',
      required: true,
      description: 'The exposed address, e.g. https://203.0.113.10:443.',
    },
    {
      name: 'caFile',
      flag: '--ca-file <file>',
      kind: 'string',
      description: "PEM CA of the exposed address's certificate, embedded in the kubeconfig.",
    },
    {
      name: 'caSecret',
      flag: '--ca-secret <namespace/name>',
      kind: 'string',
      description:
        "Read that CA from the ca.crt key of this Secret instead (the proxy's cert-manager Certificate, e.g. kfx-system/kfx-expose-api-tls).",
    },
    {
      name: 'audience',
      flag: '--audience <audience...>',
      kind: 'list',
      description: "Audiences of the token. Default: the apiserver's own (--api-audiences).",
    },
    {
      name: 'expiration',
      flag: '--expiration <seconds>',
      kind: 'integer',
      default: 3600,
      description: 'Requested token lifetime (at least 600; the apiserver may cap it).',
    },
    {
      name: 'pod',
      flag: '--pod <name>',
      kind: 'string',
      description:
        "Bind the token to this Pod (in the service account's namespace): it stops working when the Pod is deleted.",
    },
    {
      name: 'output',
      flag: '--output <file>',
      kind: 'string',
      description:
        'Write the kubeconfig here (mode 0600, replaced atomically) instead of printing it.',
    },
    {
      name: 'kubeconfig',
      flag: '--kubeconfig <file>',
      kind: 'string',
      description:
        'Credentials used to mint the token (needs create on serviceaccounts/token). Default: KUBECONFIG, ~/.kube/config, in-cluster.',
    },
    {
      name: 'context',
      flag: '--context <name>',
      kind: 'string',
      description: 'Context of --kubeconfig to use.',
    },
  ],
};

const schema = z
  .strictObject({
    serviceAccount: namespacedName,
    server: httpsUrl,
    ...caSourceFields,
    audience: z.array(z.string().min(1, { message: 'expected a non-empty audience' })).default([]),
    expiration: z
      .number()
      .int({ message: 'expected whole seconds' })
      .min(600, { message: 'the apiserver accepts at least 600 seconds' })
      .max(31_536_000, { message: 'expected at most a year (and much less is wiser)' })
      .default(3600),
    pod: objectName.optional(),
    output: z.string().min(1).optional(),
    tokenFile: z.string().min(1).optional(),
    kubeconfig: z.string().optional(),
    context: z.string().optional(),
  })
  .refine(...notBoth('caFile', 'caSecret'));

export type MintKubeconfigOptions = z.input<typeof schema> & {
  /** Mint with this client instead of one built from kubeconfig/context. */
  client?: KubeClient | undefined;
};

export interface MintedKubeconfig {
  /** The kubeconfig YAML (also when written to `output`). */
  kubeconfig: string;
  token: MintedToken;
  /** The file written, when `output` was given. */
  written: string | undefined;
  /** Things the user should know, for stderr. */
  warnings: string[];
}

export async function mintKubeconfig(options: MintKubeconfigOptions): Promise<MintedKubeconfig> {
  const { client: givenClient, ...rest } = options;
  const opts = validateOptions(kubeconfigCommand, schema, rest);
  return withAdminClient(givenClient, opts, async (client) => {
    const caPem = await readCaPem(opts, client);
    const { namespace, name } = opts.serviceAccount;
    const token = await mintToken(client(), {
      namespace,
      serviceAccount: name,
      audiences: opts.audience,
      expirationSeconds: opts.expiration,
      pod: opts.pod,
    });
    const kubeconfig = kubeconfigYaml({
      server: opts.server,
      caPem,
      credential:
        opts.tokenFile === undefined
          ? { token: token.token }
          : { tokenFile: resolve(opts.tokenFile) },
      namespace,
      name: `${name}@${namespace}`,
      clusterName: 'kfx-expose-api',
    });
    const warnings: string[] = [];
    if (caPem === undefined) {
      warnings.push(
        'no --ca-file or --ca-secret: the kubeconfig trusts only the system CAs, which will not know a cert-manager CA',
      );
    }
    // The token first: a kubeconfig must never point at a token that is not there yet.
    if (opts.tokenFile !== undefined)
      await writePrivateFile(opts.tokenFile, token.token, '--token-file');
    if (opts.output !== undefined) await writePrivateFile(opts.output, kubeconfig, '--output');
    return { kubeconfig, token, written: opts.output, warnings };
  });
}
