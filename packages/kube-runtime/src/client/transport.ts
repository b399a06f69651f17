// One keep-alive connection pool per client, built from the kubeconfig's TLS and credentials.
// The pool is an explicit https.Agent, which Node never routes through HTTP(S)_PROXY (not even
// under NODE_USE_ENV_PROXY=1): API traffic goes through a proxy only when the kubeconfig names a
// proxy-url or the caller asks for the environment's proxy with `useProxyEnv`.
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

export interface TransportOptions {
  /** Honour HTTPS_PROXY/HTTP_PROXY/NO_PROXY for API traffic. Default false. */
  useProxyEnv?: boolean | undefined;
}

/** Credentials are re-read this often, so rotated token files and exec plugins take effect. */
const AUTH_TTL_MS = 10_000;

interface Credentials {
  headers: Record<string, string>;
  tls: https.AgentOptions;
  /** Identity of the TLS material, to notice a rotated client certificate. */
  tlsId: string;
  readAt: number;
}

export class Transport {
  readonly server: URL;
  readonly proxy: string | undefined;
  #credentials: Promise<Credentials> | undefined;
  #agent: http.Agent | undefined;
  #agentTlsId = '';
  #closed = false;

  constructor(
    private readonly kc: KubeConfig,
    options: TransportOptions = {},
  ) {
    const cluster = kc.getCurrentCluster();
    if (!cluster) {
      throw new Error(`kubeconfig context "${kc.getCurrentContext()}" has no cluster`);
    }
    this.server = new URL(cluster.server);
    if (this.server.protocol !== 'https:' && this.server.protocol !== 'http:') {
      throw new Error(`cluster "${cluster.name}": server ${cluster.server} is not an http(s) URL`);
    }
    if (cluster.proxyUrl?.startsWith('socks')) {
      throw new Error(
        `cluster "${cluster.name}": proxy-url ${cluster.proxyUrl}: SOCKS proxies are not supported`,
      );
    }
    this.proxy = cluster.proxyUrl ?? (options.useProxyEnv ? 'environment' : undefined);
    if (this.proxy !== undefined && !nodeHasAgentProxySupport()) {
      throw new Error(
        `a proxy for API traffic (${this.proxy === 'environment' ? 'useProxyEnv' : 'proxy-url'}) ` +
          `needs Node >= 24.5; this is Node ${process.versions.node}`,
      );
    }
  }

  /** Headers with the current credentials, and an agent that carries the current TLS identity. */
  async prepare(): Promise<{ agent: http.Agent; headers: Record<string, string> }> {
    if (this.#closed) throw new Error('the Kubernetes client is closed');
    let creds = await (this.#credentials ??= this.#readCredentials());
    if (Date.now() - creds.readAt > AUTH_TTL_MS) {
      this.#credentials = this.#readCredentials();
      creds = await this.#credentials;
    }
    if (!this.#agent || this.#agentTlsId !== creds.tlsId) {
      // A rotated client certificate needs new connections; the old pool drains by itself.
      const previous = this.#agent;
      this.#agent = this.#createAgent(creds.tls);
      this.#agentTlsId = creds.tlsId;
      if (previous) {
        setTimeout(() => {
          previous.destroy();
        }, 60_000).unref();
      }
    }
    return { agent: this.#agent, headers: creds.headers };
  }

  /** Forget cached credentials (after a 401), so the next request reads them again. */
  invalidateCredentials(): void {
    this.#credentials = undefined;
  }

  close(): void {
    this.#closed = true;
    this.#agent?.destroy();
  }

  #readCredentials(): Promise<Credentials> {
    const read = this.#applyKubeConfig();
    // A failed read (an exec plugin that failed once) must not be cached for good.
    read.catch(() => {
      if (this.#credentials === read) this.#credentials = undefined;
    });
    return read;
  }

  async #applyKubeConfig(): Promise<Credentials> {
    const opts: https.RequestOptions = { headers: {} };
    await this.kc.applyToHTTPSOptions(opts);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(opts.headers ?? {})) {
      if (typeof value === 'string') headers[name] = value;
      else if (typeof value === 'number') headers[name] = String(value);
    }
    if (opts.auth) headers.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
    const tls: https.AgentOptions = {};
    if (opts.ca !== undefined) tls.ca = opts.ca;
    if (opts.cert !== undefined) tls.cert = opts.cert;
    if (opts.key !== undefined) tls.key = opts.key;
    if (opts.pfx !== undefined) tls.pfx = opts.pfx;
    if (opts.passphrase !== undefined) tls.passphrase = opts.passphrase;
    if (opts.servername !== undefined) tls.servername = opts.servername;
    if (opts.rejectUnauthorized !== undefined) tls.rejectUnauthorized = opts.rejectUnauthorized;
    const tlsId = JSON.stringify([tls.ca, tls.cert, tls.key].map(fingerprint));
    return { headers, tls, tlsId, readAt: Date.now() };
  }

  #createAgent(tls: https.AgentOptions): http.Agent {
    const proxyEnv =
      this.proxy === undefined
        ? undefined
        : this.proxy === 'environment'
          ? process.env
          : { HTTPS_PROXY: this.proxy, HTTP_PROXY: this.proxy };
    const common: http.AgentOptions = {
      keepAlive: true,
      // TCP keep-alive probes after 30 s of silence find connections that died without a FIN.
      keepAliveMsecs: 30_000,
      ...(proxyEnv ? { proxyEnv } : {}),
    };
    return this.server.protocol === 'https:'
      ? new https.Agent({ ...common, ...tls })
      : new http.Agent(common);
  }
}

/** Identifies PEM strings and buffers (arrays of them too) without keeping the text around. */
function fingerprint(value: unknown): string {
  if (value === undefined) return '';
  const parts = (Array.isArray(value) ? value : [value]).map((part: unknown) =>
    typeof part === 'string' || Buffer.isBuffer(part)
      ? createHash('sha256').update(part).digest('hex')
      : 'other',
  );
  return parts.join(',');
}

function nodeHasAgentProxySupport(): boolean {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  return major > 24 || (major === 24 && minor >= 5);
}
