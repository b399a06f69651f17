// `renderEnv` (`kfx expose-api env`): the KUBERNETES_SERVICE_HOST/PORT family and the CA for the exposed
// address, as shell variables or in interLink's virtual-kubelet and Helm value shapes.
import type { KubeClient } from '@kfx/kube-runtime/client';
import { z } from 'zod';
import { formatEnv, serviceEnv, type EnvFormat, type ExposedApi } from '../env/service-env.js';
import { readCaPem } from '../token/ca-source.js';
import { withAdminClient } from './admin-client.js';
import { validateOptions } from './validate-options.js';
import { caSourceFields, httpsUrl, notBoth } from './values.js';

const schema = z
  .strictObject({
    server: httpsUrl.refine(
      (text) => {
        const url = new URL(text);
        return (url.pathname === '/' || url.pathname === '') && url.search === '';
      },
      {
        message:
          'in-cluster clients build https://HOST:PORT from these variables, so the address cannot have a path',
      },
    ),
    ...caSourceFields,
    format: z
      .enum(['env', 'virtual-kubelet', 'helm-values', 'json'], {
        message: 'expected env, virtual-kubelet, helm-values or json',
      })
      .default('env'),
    kubeconfig: z.string().optional(),
    context: z.string().optional(),
  })
  .refine(...notBoth('caFile', 'caSecret'));

export type RenderEnvOptions = z.input<typeof schema> & {
  /** Read `caSecret` with this client instead of one built from kubeconfig/context. */
  client?: KubeClient | undefined;
};

export interface RenderedEnv extends ExposedApi {
  /** The output in the chosen format. */
  text: string;
  format: EnvFormat;
  env: Record<string, string>;
}

export async function renderEnv(options: RenderEnvOptions): Promise<RenderedEnv> {
  const { client: givenClient, ...rest } = options;
  const opts = validateOptions('renderEnv', schema, rest);
  return withAdminClient(givenClient, opts, async (client) => {
    const caPem = await readCaPem('renderEnv', opts, client);
    const url = new URL(opts.server);
    const api: ExposedApi = {
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: Number(url.port || 443),
      caPem,
    };
    return { ...api, format: opts.format, env: serviceEnv(api), text: formatEnv(api, opts.format) };
  });
}
