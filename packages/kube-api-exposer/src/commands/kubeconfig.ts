// `mintKubeconfig` (`kfx expose-api kubeconfig`): a kubeconfig for the exposed address with a freshly minted,
// short-lived, bound service-account token, for an interLink plugin or a person.
import type { KubeClient } from '@kfx/kube-runtime/client';
import { resolve } from 'node:path';
import { z } from 'zod';
import { readCaPem } from '../token/ca-source.js';
import { kubeconfigYaml, writePrivateFile } from '../token/kubeconfig-yaml.js';
import { mintToken, type MintedToken } from '../token/token-request.js';
import { withAdminClient } from './admin-client.js';
import { validateOptions } from './validate-options.js';
import { caSourceFields, httpsUrl, namespacedName, objectName, notBoth } from './values.js';

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
  /** Things the user should know, for stderr; options are named in backquotes (see `renameOptions`). */
  warnings: string[];
}

export async function mintKubeconfig(options: MintKubeconfigOptions): Promise<MintedKubeconfig> {
  const { client: givenClient, ...rest } = options;
  const opts = validateOptions('mintKubeconfig', schema, rest);
  return withAdminClient(givenClient, opts, async (client) => {
    const caPem = await readCaPem('mintKubeconfig', opts, client);
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
        'no `caFile` or `caSecret`: the kubeconfig trusts only the system CAs, which will not know a cert-manager CA',
      );
    }
    // The token first: a kubeconfig must never point at a token that is not there yet.
    if (opts.tokenFile !== undefined)
      await writePrivateFile(opts.tokenFile, token.token, 'tokenFile');
    if (opts.output !== undefined) await writePrivateFile(opts.output, kubeconfig, 'output');
    return { kubeconfig, token, written: opts.output, warnings };
  });
}
