// Where the proxy forwards to, and which CA it trusts there. In a Pod: the apiserver's Service
// (KUBERNETES_SERVICE_HOST/PORT) and the service account's ca.crt. Otherwise an explicit URL and
// CA, or the server and CA of a kubeconfig. Never the kubeconfig's credentials: the proxy has no
// identity of its own upstream.
import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { loadKubeConfig } from '@kfx/kube-runtime';

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

function readCa(file: string, flag: string): string {
  if (!existsSync(file)) throw new Error(`${flag}: the CA file ${file} does not exist`);
  const pem = readFileSync(file, 'utf8');
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new Error(
      `${flag}: ${file} holds no PEM certificate (expected "-----BEGIN CERTIFICATE-----")`,
    );
  }
  return pem;
}

function parseUrl(text: string, flag: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`${flag}: ${JSON.stringify(text)} is not a URL (expected https://HOST:PORT)`);
  }
  if (url.protocol !== 'https:') {
    throw new Error(`${flag}: ${text} must be an https:// URL (the API is only served over TLS)`);
  }
  return url;
}

export function resolveUpstream(options: UpstreamOptions): Upstream {
  const env = options.env ?? process.env;
  const caFromFlag =
    options.upstreamCa === undefined ? undefined : readCa(options.upstreamCa, '--upstream-ca');
  if (options.upstream !== undefined) {
    return {
      url: parseUrl(options.upstream, '--upstream'),
      ca: caFromFlag,
      caFile: options.upstreamCa,
      servername: undefined,
      source: `--upstream ${options.upstream}`,
    };
  }
  if (options.kubeconfig !== undefined) return fromKubeconfig(options, caFromFlag);
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) {
    throw new Error(
      'no upstream: pass --upstream URL (with --upstream-ca FILE) or --kubeconfig FILE, or run in ' +
        `a Pod (KUBERNETES_SERVICE_${host ? 'PORT' : 'HOST'} is not set)`,
    );
  }
  const caFile = options.upstreamCa ?? `${options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR}/ca.crt`;
  return {
    url: parseUrl(
      `https://${isIP(host) === 6 ? `[${host}]` : host}:${port}`,
      'KUBERNETES_SERVICE_HOST/PORT',
    ),
    ca: caFromFlag ?? readCa(caFile, 'the in-cluster CA'),
    caFile,
    servername: undefined,
    source: `in-cluster (KUBERNETES_SERVICE_HOST=${host}, KUBERNETES_SERVICE_PORT=${port})`,
  };
}

function fromKubeconfig(options: UpstreamOptions, caFromFlag: string | undefined): Upstream {
  const kc = loadKubeConfig({ kubeconfig: options.kubeconfig, context: options.context });
  const cluster = kc.getCurrentCluster();
  const where = `kubeconfig ${options.kubeconfig ?? ''} context "${kc.getCurrentContext()}"`;
  if (!cluster) throw new Error(`${where} names no cluster`);
  if (cluster.skipTLSVerify && caFromFlag === undefined) {
    throw new Error(
      `${where}: cluster "${cluster.name}" sets insecure-skip-tls-verify; the proxy always ` +
        'verifies the apiserver, so pass --upstream-ca FILE',
    );
  }
  let ca = caFromFlag;
  let caFile = options.upstreamCa;
  if (ca === undefined && cluster.caData)
    ca = Buffer.from(cluster.caData, 'base64').toString('utf8');
  if (ca === undefined && cluster.caFile) {
    caFile = cluster.caFile;
    ca = readCa(cluster.caFile, `${where} certificate-authority`);
  }
  return {
    url: parseUrl(cluster.server, `${where} server`),
    ca,
    caFile,
    servername: cluster.tlsServerName,
    source: `${where} (server and CA only)`,
  };
}
