// `check`'s step for interLink's copy of the exposer's CA (`interlinkConfig`, read through the
// exposed address with the check's own token, or `interlinkConfigFile`): does it verify the
// chain the exposer serves, and does it end within 30 days. Remote Pods get this copy as their
// `ca.crt`; when it no longer matches, every one of them fails TLS.
import { readText } from '../read-text.js';
import {
  CA_COPY_WARNING_DAYS,
  certificatesOf,
  copyEnds,
  copyVerifies,
  findCaCopy,
} from '../interlink/ca-copy.js';
import { servedChain } from '../interlink/served-chain.js';
import { answerMessage, apiRequest, type ApiTarget } from './api-request.js';
import { failed, passed, type CheckStep } from './step.js';

export interface InterlinkSource {
  /** interLink's ConfigMap or Secret. */
  interlinkConfig?: { namespace: string; name: string } | undefined;
  interlinkConfigFile?: string | undefined;
}

const DAY_MS = 86_400_000;
const PASTE_BACK =
  'print what to give interLink with `kfx expose-api env --format helm-values` (its `kubernetesApiCaCrt`), then upgrade interLink';

/** The text holding the copy, and where it came from (options in backquotes). */
async function readSource(
  target: ApiTarget,
  source: InterlinkSource,
): Promise<{ text: string; from: string } | { error: string }> {
  if (source.interlinkConfigFile !== undefined) {
    const file = source.interlinkConfigFile;
    return {
      text: await readText(file, { fn: 'check', option: 'interlinkConfigFile' }),
      from: `\`interlinkConfigFile\` ${file}`,
    };
  }
  const { namespace = '', name = '' } = source.interlinkConfig ?? {};
  const base = `/api/v1/namespaces/${encodeURIComponent(namespace)}`;
  const configMap = await apiRequest(
    target,
    'GET',
    `${base}/configmaps/${encodeURIComponent(name)}`,
  );
  if (configMap.status === 200) {
    return { text: JSON.stringify(configMap.json), from: `ConfigMap ${namespace}/${name}` };
  }
  const secret = await apiRequest(target, 'GET', `${base}/secrets/${encodeURIComponent(name)}`);
  if (secret.status === 200) {
    const data = (secret.json as { data?: Record<string, string> }).data ?? {};
    const decoded = Object.fromEntries(
      Object.entries(data).map(([key, value]) => [
        key,
        Buffer.from(value, 'base64').toString('utf8'),
      ]),
    );
    return { text: JSON.stringify({ data: decoded }), from: `Secret ${namespace}/${name}` };
  }
  return {
    error: `neither a ConfigMap nor a Secret ${namespace}/${name} could be read with this token: ${String(configMap.status)} ${answerMessage(configMap)}; ${String(secret.status)} ${answerMessage(secret)}`,
  };
}

export async function checkInterlinkCa(
  target: ApiTarget,
  source: InterlinkSource,
  host: string,
  port: number,
): Promise<CheckStep> {
  const read = await readSource(target, source);
  if ('error' in read) {
    return failed('interlink-ca', `interLink's copy of the CA could not be read`, [
      read.error,
      'give the check a token that may read it, or the file: `interlinkConfigFile`',
    ]);
  }
  const copy = findCaCopy(read.text);
  const cas = copy === undefined ? [] : certificatesOf(copy);
  if (cas.length === 0) {
    return failed('interlink-ca', `${read.from} holds no kubernetesApiCaCrt`, [PASTE_BACK]);
  }
  const chain = await servedChain(host, port, target.timeoutMs);
  const ends = copyEnds(cas);
  const facts = ends === undefined ? [] : [`interLink's copy ends ${ends.toISOString()}`];
  if (!copyVerifies(chain, cas)) {
    return failed(
      'interlink-ca',
      `interLink's copy of the CA in ${read.from} does not verify the certificate the exposer serves: Pods on the remote node fail TLS`,
      [...facts, PASTE_BACK],
    );
  }
  const daysLeft = ends === undefined ? Infinity : (ends.getTime() - Date.now()) / DAY_MS;
  return passed(
    'interlink-ca',
    `interLink's copy of the CA in ${read.from} verifies the certificate the exposer serves`,
    daysLeft < CA_COPY_WARNING_DAYS
      ? [
          ...facts,
          `warning: it ends in ${String(Math.max(0, Math.floor(daysLeft)))} days: ${PASTE_BACK} once the CA is renewed`,
        ]
      : facts,
  );
}
