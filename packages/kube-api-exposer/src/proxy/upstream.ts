// Where the proxy forwards to, and which CA it trusts there. In a Pod: the apiserver's Service
// (KUBERNETES_SERVICE_HOST/PORT) and the service account's ca.crt. Otherwise an explicit URL and
// CA, or the server and CA of a kubeconfig. Never the kubeconfig's credentials: the proxy has no
// identity of its own upstream.
import { existsSync, readFileSync } from 'node:fs';
import { loadKubeConfig } from '@kfx/kube-runtime/client';
import { messageOf } from '@kfx/kube-runtime/serving';
import { unusableOption } from '../options-error.js';
import { hostPort } from '../host-port.js';

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface UpstreamOptions {
  /** The apiserver URL (`https://host:port`, optionally with a path prefix). */
  upstream?: string | undefined;
  /** PEM file of the CA that signed the apiserver's certificate. */
  upstreamCa?: string | undefined;
  /** Take the server and CA (only) from this kubeconfig. */
  kubeconfig?: string | undefined;
  /** The kubeconfig context; default its current-context. */
  context?: string | undefined;
  /** For tests: the environment and the service-account folder. */
  env?: NodeJS.ProcessEnv | undefined;
  serviceAccountDir?: string | undefined;
}

export interface Upstream {
  url: URL;
  /** PEM of the trusted CA; undefined means the system's trust store. */
  ca: string | undefined;
  /** The file the CA is read from, watched for rotation. */
  caFile: string | undefined;
  /** TLS server name when it differs from the URL's host (kubeconfig `tls-server-name`). */
  servername: string | undefined;
  /** Where this came from, for the start-up log and error messages. */
  source: string;
}

/** The PEM in `file`; throws a plain message when there is none. */
function readCa(file: string): string {
  if (!existsSync(file)) throw new Error(`the CA file ${file} does not exist`);
  const pem = readFileSync(file, 'utf8');
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new Error(`${file} holds no PEM certificate (expected "-----BEGIN CERTIFICATE-----")`);
  }
  return pem;
}

/** `read()`, its failure an `OptionsError` of `serve` naming `option`. */
function asOption<T>(option: string, read: () => T, prefix = ''): T {
  try {
    return read();
  } catch (error) {
    throw unusableOption('serve', option, `${prefix}${messageOf(error)}`, error);
  }
}

function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`${JSON.stringify(text)} is not a URL (expected https://HOST:PORT)`);
  }
  if (url.protocol !== 'https:') {
    throw new Error(`${text} must be an https:// URL (the API is only served over TLS)`);
  }
  return url;
}

export function resolveUpstream(options: UpstreamOptions): Upstream {
  const env = options.env ?? process.env;
  const { upstreamCa } = options;
  const caFromOption =
    upstreamCa === undefined ? undefined : asOption('upstreamCa', () => readCa(upstreamCa));
  if (options.upstream !== undefined) {
    const text = options.upstream;
    return {
      url: asOption('upstream', () => parseUrl(text)),
      ca: caFromOption,
      caFile: upstreamCa,
      servername: undefined,
      source: `the upstream option (${text})`,
    };
  }
  if (options.kubeconfig !== undefined) return fromKubeconfig(options, caFromOption);
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) {
    throw unusableOption(
      'serve',
      'upstream',
      'no API server to forward to: give it (with `upstreamCa`), or `kubeconfig`, or run in ' +
        `a Pod (KUBERNETES_SERVICE_${host ? 'PORT' : 'HOST'} is not set)`,
    );
  }
  const caFile = upstreamCa ?? `${options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR}/ca.crt`;
  const inCluster = `https://${hostPort(host, port)}`;
  let url: URL;
  try {
    url = parseUrl(inCluster);
  } catch (error) {
    throw new Error(`KUBERNETES_SERVICE_HOST/PORT: ${messageOf(error)}`, { cause: error });
  }
  return {
    url,
    ca:
      caFromOption ??
      asOption('upstreamCa', () => readCa(caFile), 'not given, and the in-cluster CA fails: '),
    caFile,
    servername: undefined,
    source: `in-cluster (KUBERNETES_SERVICE_HOST=${host}, KUBERNETES_SERVICE_PORT=${port})`,
  };
}

function fromKubeconfig(options: UpstreamOptions, caFromOption: string | undefined): Upstream {
  const kc = loadKubeConfig({ kubeconfig: options.kubeconfig, context: options.context });
  const cluster = kc.getCurrentCluster();
  const where = `${options.kubeconfig ?? ''} (context "${kc.getCurrentContext()}")`;
  if (!cluster) throw unusableOption('serve', 'kubeconfig', `${where} names no cluster`);
  if (cluster.skipTLSVerify && caFromOption === undefined) {
    throw unusableOption(
      'serve',
      'upstreamCa',
      `required: cluster "${cluster.name}" of \`kubeconfig\` ${where} sets ` +
        'insecure-skip-tls-verify, and the proxy always verifies the apiserver',
    );
  }
  let ca = caFromOption;
  let caFile = options.upstreamCa;
  if (ca === undefined && cluster.caData)
    ca = Buffer.from(cluster.caData, 'base64').toString('utf8');
  if (ca === undefined && cluster.caFile) {
    const file = cluster.caFile;
    caFile = file;
    ca = asOption('kubeconfig', () => readCa(file), `${where}: certificate-authority: `);
  }
  return {
    url: asOption('kubeconfig', () => parseUrl(cluster.server), `${where}: server: `),
    ca,
    caFile,
    servername: cluster.tlsServerName,
    source: `the kubeconfig option, ${where} (server and CA only)`,
  };
}
