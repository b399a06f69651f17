// The proxy's CA bundle, for TLS-inspecting proxies: a ConfigMap key mounted read-only in every
// container and named by the variables tools read their trust store from. Five of them REPLACE
// the tool's trust store (SSL_CERT_FILE for OpenSSL and Go, REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE,
// PIP_CERT, GIT_SSL_CAINFO); only NODE_EXTRA_CA_CERTS adds to it. A bundle holding the proxy's
// CA alone would make every public CA untrusted for the first five, so those are set only for a
// full bundle (the public roots and the proxy's CA); a bundle of one certificate is taken for
// the proxy's CA alone and gets NODE_EXTRA_CA_CERTS only, with a warning.
import type { V1ConfigMap, V1Volume } from '@kubernetes/client-node';
import type { Plain } from '@kfx/admission-core';
import type { ProxyInjectorConfig } from './config.js';
import type { VariableFamily } from './variables.js';

export type CaBundleConfig = NonNullable<ProxyInjectorConfig['caBundle']>;

/** Variables that replace a tool's trust store with the file they name. */
const CA_REPLACING_VARIABLES: readonly string[] = [
  'SSL_CERT_FILE',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
  'PIP_CERT',
  'GIT_SSL_CAINFO',
];
/** Node.js adds these certificates to its built-in roots. */
const CA_ADDITIVE_VARIABLE = 'NODE_EXTRA_CA_CERTS';
/** The Pod volume's name (a suffix is added when a volume of the Pod already has it). */
const CA_BUNDLE_VOLUME = 'kfx-proxy-ca';

/** What the webhook knows of a namespace's bundle ConfigMap. */
export type CaBundleState =
  | { state: 'full'; certificates: number }
  | { state: 'proxy-only'; source: string }
  | { state: 'missing'; reason: string };

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----/g;

export function countCertificates(pem: string): number {
  return pem.match(PEM_CERTIFICATE)?.length ?? 0;
}

/** The state of `configMap` (in its namespace) for the configured key. */
export function caBundleStateOf(
  configMap: Plain<V1ConfigMap>,
  bundle: Pick<CaBundleConfig, 'key'>,
): CaBundleState {
  const { namespace = '', name = '' } = configMap.metadata ?? {};
  const source = `ConfigMap ${namespace}/${name}`;
  const pem = configMap.data?.[bundle.key];
  if (pem === undefined) return { state: 'missing', reason: `${source} has no key ${bundle.key}` };
  const certificates = countCertificates(pem);
  if (certificates === 0) {
    return { state: 'missing', reason: `${source} key ${bundle.key} holds no PEM certificate` };
  }
  return certificates === 1 ? { state: 'proxy-only', source } : { state: 'full', certificates };
}

/** A namespace without the ConfigMap. */
export function missingBundle(namespace: string, bundle: CaBundleConfig): CaBundleState {
  return { state: 'missing', reason: `no ConfigMap ${namespace}/${bundle.configMap}` };
}

/** What the injector adds for the bundle: the volume, where it is mounted, the variables. */
export interface CaPlan {
  volume: Plain<V1Volume>;
  mountPath: string;
  families: readonly VariableFamily[];
}

function caBundleVolume(bundle: CaBundleConfig, name = CA_BUNDLE_VOLUME): Plain<V1Volume> {
  return {
    name,
    // optional: a ConfigMap deleted after admission must not keep the Pod from starting.
    configMap: {
      name: bundle.configMap,
      items: [{ key: bundle.key, path: bundle.key }],
      optional: true,
    },
  };
}

/** The plan for a namespace whose bundle is in `state`; undefined when nothing is mounted. */
export function planCaBundle(bundle: CaBundleConfig, state: CaBundleState): CaPlan | undefined {
  if (state.state === 'missing') return undefined;
  const file = `${bundle.mountPath}/${bundle.key}`;
  const names =
    state.state === 'full'
      ? [...CA_REPLACING_VARIABLES, CA_ADDITIVE_VARIABLE]
      : [CA_ADDITIVE_VARIABLE];
  return {
    volume: caBundleVolume(bundle),
    mountPath: bundle.mountPath,
    // Each variable on its own: a workload that sets REQUESTS_CA_BUNDLE still gets SSL_CERT_FILE.
    families: names.map((name) => ({
      owners: [name.toLowerCase()],
      variables: [{ name, value: file }],
    })),
  };
}

/** The admission warning for a namespace whose bundle cannot be used as it is. */
export function caBundleWarning(state: CaBundleState): string | undefined {
  if (state.state === 'missing') {
    return `proxy CA bundle not mounted: ${state.reason}; TLS through an inspecting proxy will fail in this Pod`;
  }
  if (state.state === 'proxy-only') {
    return `${state.source} holds one certificate (the proxy's CA alone?): only NODE_EXTRA_CA_CERTS is set; publish the public roots with it to get SSL_CERT_FILE and the others`;
  }
  return undefined;
}
