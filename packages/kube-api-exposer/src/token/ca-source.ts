// Where the exposed address's CA comes from: a PEM file, or the `ca.crt` key of the Secret
// cert-manager writes for the proxy's Certificate (so nobody copies it by hand).
import { readFile } from 'node:fs/promises';
import { isNotFound, resources, type KubeClient } from '@kfx/kube-runtime/client';
import { messageOf } from '@kfx/kube-runtime/serving';
import type { V1Secret } from '@kubernetes/client-node';
import { unusableOption } from '../options-error.js';

export interface CaSourceOptions {
  caFile?: string | undefined;
  /** The Secret's namespace and name. */
  caSecret?: { namespace: string; name: string } | undefined;
}

const PEM = '-----BEGIN CERTIFICATE-----';

/** The CA of `caFile` or `caSecret`; a problem with either is an `OptionsError` of `fn`. */
export async function readCaPem(
  fn: string,
  options: CaSourceOptions,
  client: () => KubeClient,
): Promise<string | undefined> {
  if (options.caFile !== undefined) {
    let text: string;
    try {
      text = await readFile(options.caFile, 'utf8');
    } catch (error) {
      throw unusableOption(
        fn,
        'caFile',
        `${options.caFile} cannot be read: ${messageOf(error)}`,
        error,
      );
    }
    if (!text.includes(PEM)) {
      throw unusableOption(
        fn,
        'caFile',
        `${options.caFile} holds no PEM certificate (expected "${PEM}")`,
      );
    }
    return text;
  }
  if (options.caSecret === undefined) return undefined;
  const { namespace, name } = options.caSecret;
  const secret = await client()
    .get<V1Secret>(resources.secrets, name, { namespace })
    .catch((error: unknown) => {
      if (isNotFound(error)) {
        throw unusableOption(
          fn,
          'caSecret',
          `${namespace}/${name}: no such Secret (cert-manager creates it once the Certificate is issued; see kubectl -n ${namespace} get certificate)`,
          error,
        );
      }
      throw error;
    });
  const data = secret.data?.['ca.crt'];
  if (data === undefined || data === '') {
    const keys = Object.keys(secret.data ?? {}).join(', ') || 'none';
    throw unusableOption(
      fn,
      'caSecret',
      `${namespace}/${name} has no "ca.crt" key (keys: ${keys}); use the Secret of the proxy's cert-manager Certificate, or \`caFile\``,
    );
  }
  const pem = Buffer.from(data, 'base64').toString('utf8');
  if (!pem.includes(PEM)) {
    throw unusableOption(fn, 'caSecret', `${namespace}/${name}: "ca.crt" is not a PEM certificate`);
  }
  return pem;
}
