// `serve`'s watch on interLink's copy of its CA (`interlinkConfig`): at start and every five
// minutes, the ConfigMap or Secret is read with the exposer's own credentials and the copy
// compared with the chain the exposer serves now. Two gauges say whether the copy still verifies
// it and when the copy ends, for an alert before remote Pods fail TLS; a line is logged when the
// answer changes.
import { readFile } from 'node:fs/promises';
import { isNotFound, resources, type KubeClient } from '@kfx/kube-runtime/client';
import { messageOf } from '@kfx/kube-runtime/serving';
import type { V1ConfigMap, V1Secret } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { ProxyMetrics } from '../proxy/metrics.js';
import { certificatesOf, copyEnds, copyVerifies, findCaCopy } from './ca-copy.js';

const INTERVAL_MS = 5 * 60_000;

export interface CaCopyWatchOptions {
  client: KubeClient;
  /** interLink's ConfigMap or Secret. */
  config: { namespace: string; name: string };
  /** The serving certificate file (its chain), read at each check: it is renewed in place. */
  certFile: string;
  metrics: Pick<ProxyMetrics, 'interlinkCaMatches' | 'interlinkCaExpiry'>;
  logger: Logger;
}

/** The text of the ConfigMap's or Secret's values, or undefined when neither exists. */
async function readConfig(client: KubeClient, namespace: string, name: string) {
  try {
    const configMap = await client.get<V1ConfigMap>(resources.configMaps, name, { namespace });
    return JSON.stringify(configMap.data ?? {});
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  try {
    const secret = await client.get<V1Secret>(resources.secrets, name, { namespace });
    const data = Object.entries(secret.data ?? {}).map(([key, value]) => [
      key,
      Buffer.from(value, 'base64').toString('utf8'),
    ]);
    return JSON.stringify(Object.fromEntries(data));
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** Starts the watch; the returned function stops it. */
export function watchCaCopy(options: CaCopyWatchOptions): () => void {
  const { client, certFile, metrics, logger } = options;
  const { namespace, name } = options.config;
  const config = `${namespace}/${name}`;
  let last: string | undefined;
  const say = (state: string, level: 'info' | 'warn', message: string, fields = {}) => {
    if (state === last) return;
    last = state;
    logger[level]({ interlinkConfig: config, ...fields }, message);
  };
  const checkOnce = async () => {
    try {
      const text = await readConfig(client, namespace, name);
      const copy = text === undefined ? undefined : findCaCopy(text);
      const cas = copy === undefined ? [] : certificatesOf(copy);
      if (cas.length === 0) {
        metrics.interlinkCaMatches.set({ config }, 0);
        say(
          'missing',
          'warn',
          `interLink's copy of the CA is not in ${config} (no ConfigMap or Secret holding kubernetesApiCaCrt)`,
        );
        return;
      }
      const chain = certificatesOf(await readFile(certFile, 'utf8'));
      const matches = copyVerifies(chain, cas);
      const ends = copyEnds(cas);
      metrics.interlinkCaMatches.set({ config }, matches ? 1 : 0);
      if (ends !== undefined) metrics.interlinkCaExpiry.set({ config }, ends.getTime() / 1000);
      if (matches)
        say(
          'matches',
          'info',
          `interLink's copy of the CA in ${config} verifies the certificate served`,
          { ends },
        );
      else
        say(
          'differs',
          'warn',
          `interLink's copy of the CA in ${config} does not verify the certificate served: Pods on the remote nodes fail TLS; give interLink the CA again (kfx expose-api env --format helm-values)`,
          { ends },
        );
    } catch (error) {
      say(
        `error:${messageOf(error)}`,
        'warn',
        `interLink's copy of the CA in ${config} could not be read: ${messageOf(error)} (the exposer's ServiceAccount needs get on that ConfigMap or Secret)`,
      );
    }
  };
  void checkOnce();
  const timer = setInterval(() => void checkOnce(), INTERVAL_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
  };
}
