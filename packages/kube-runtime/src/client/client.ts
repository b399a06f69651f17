// A raw JSON client for the Kubernetes API on node:https: objects stay plain JSON exactly as the
// server sent them (timestamps stay strings), every call has a timeout, a retry policy and a
// metric, and all calls share one keep-alive connection pool.
import type { IncomingMessage } from 'node:http';
import type { KubeConfig, V1APIResourceList } from '@kubernetes/client-node';
import { Registry, type Counter, type Histogram } from 'prom-client';
import { parseRetryAfter, sleep } from '../backoff.js';
import { Discovery } from './discovery.js';
import { KubeApiError } from './errors.js';
import { readBody, readList, send, type Sent } from './http-request.js';
import { defaultLogger, type Logger } from '../logger.js';
import { counter, histogram } from '../metrics.js';
import { retryDelay, type RetryOptions } from './retry-policy.js';
import { Transport } from './transport.js';
import { KubeVerbs, type Query, type RequestOptions } from './verbs.js';
import type { KubeList, ResourceRef } from './resources.js';

export type { Query, RequestOptions } from './verbs.js';

export interface KubeClientOptions {
  /** User-Agent header. Default `kfx-kube-runtime`. */
  userAgent?: string | undefined;
  /**
   * Send API traffic through HTTPS_PROXY/HTTP_PROXY (minding NO_PROXY). Default false: API
   * traffic goes straight to the server whatever the environment says. A kubeconfig
   * `proxy-url` is always honoured.
   */
  useProxyEnv?: boolean | undefined;
  /** Where the request metrics go. Default: a new Registry (see `client.registry`). */
  registry?: Registry | undefined;
  /** Per-attempt timeout for a request; for streams, until the response head. Default 30 s. */
  timeoutMs?: number | undefined;
  retry?: RetryOptions | undefined;
  logger?: Logger | undefined;
}

export class KubeClient extends KubeVerbs {
  readonly registry: Registry;
  readonly logger: Logger;
  readonly #transport: Transport;
  readonly #options: KubeClientOptions;
  readonly #requests: Counter<'method' | 'code'>;
  readonly #duration: Histogram<'method'>;
  readonly #discovery: Discovery;

  static fromKubeConfig(kc: KubeConfig, options: KubeClientOptions = {}): KubeClient {
    return new KubeClient(kc, options);
  }

  private constructor(kc: KubeConfig, options: KubeClientOptions) {
    super();
    this.#options = options;
    this.#transport = new Transport(kc, { useProxyEnv: options.useProxyEnv });
    this.registry = options.registry ?? new Registry();
    this.logger = options.logger ?? defaultLogger();
    this.#requests = counter(
      this.registry,
      'kfx_kube_api_requests_total',
      'Kubernetes API requests by method and HTTP status (code "error" when no answer came)',
      ['method', 'code'],
    );
    this.#duration = histogram(
      this.registry,
      'kfx_kube_api_request_duration_seconds',
      'Time to the answer of a Kubernetes API request (to the response head for watches)',
      ['method'],
    );
    this.#discovery = new Discovery((path) => this.request<V1APIResourceList>('GET', path));
  }

  /** The API server URL. */
  get server(): string {
    return this.#transport.server.href;
  }

  /** The proxy API traffic goes through: a URL, `environment`, or undefined (direct). */
  get proxy(): string | undefined {
    return this.#transport.proxy;
  }

  /** Sends a request and parses the JSON answer; non-2xx answers throw a KubeApiError. */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const sent = await this.#exchange(method, path, options);
    let text: string;
    try {
      text = await readBody(sent, method, path);
    } catch (error) {
      throw options.signal?.aborted ? options.signal.reason : error;
    }
    if (text === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new KubeApiError({
        method,
        path,
        status: sent.response.statusCode ?? 0,
        reason: 'BadResponse',
        message: `the answer is not JSON: ${text.slice(0, 200)}`,
      });
    }
  }

  /** Sends a GET for a list and hands each item to `onItem` as it is read (list-stream.ts). */
  async requestList(
    path: string,
    options: RequestOptions,
    onItem: (item: unknown) => void,
  ): Promise<Omit<KubeList<unknown>, 'items'>> {
    const sent = await this.#exchange('GET', path, options);
    try {
      const fields = await readList(sent, 'GET', path, onItem);
      const metadata = (fields.metadata ?? {}) as KubeList<unknown>['metadata'];
      return { ...fields, metadata };
    } catch (error) {
      throw options.signal?.aborted ? options.signal.reason : error;
    }
  }

  /** Sends a request and returns the answer as text (e.g. `pods/log`). */
  async requestText(method: string, path: string, options: RequestOptions = {}): Promise<string> {
    const sent = await this.#exchange(method, path, options);
    try {
      return await readBody(sent, method, path);
    } catch (error) {
      throw options.signal?.aborted ? options.signal.reason : error;
    }
  }

  /** Sends a request and returns the open response (watches, `pods/log?follow=true`). */
  async stream(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<IncomingMessage> {
    return (await this.#exchange(method, path, options)).response;
  }

  /** apiVersion + kind → ResourceRef, from the server's discovery documents (cached). */
  resolve(apiVersion: string, kind: string): Promise<ResourceRef> {
    return this.#discovery.resolve(apiVersion, kind);
  }

  /** Closes pooled connections; open watches end. */
  close(): void {
    this.#transport.close();
  }

  async #exchange(method: string, path: string, options: RequestOptions): Promise<Sent> {
    const fullPath = withQuery(path, options.query);
    const body =
      options.body === undefined
        ? undefined
        : typeof options.body === 'string'
          ? options.body
          : JSON.stringify(options.body);
    const verb = options.metricVerb ?? method;
    let refreshedCredentials = false;
    for (let attempt = 0; ; attempt++) {
      const { agent, headers } = await this.#transport.prepare();
      const requestHeaders: Record<string, string> = {
        ...headers,
        Accept: options.accept ?? 'application/json',
        'User-Agent': this.#options.userAgent ?? 'kfx-kube-runtime',
      };
      if (body !== undefined)
        requestHeaders['Content-Type'] = options.contentType ?? 'application/json';
      const started = performance.now();
      let error: unknown;
      try {
        const sent = await send({
          server: this.#transport.server,
          agent,
          method,
          path: fullPath,
          headers: requestHeaders,
          body,
          signal: options.signal,
          timeoutMs: options.timeoutMs ?? this.#options.timeoutMs ?? 30_000,
        });
        const status = sent.response.statusCode ?? 0;
        this.#requests.inc({ method: verb, code: String(status) });
        this.#duration.observe({ method: verb }, (performance.now() - started) / 1000);
        if (status >= 200 && status < 300) return sent;
        const text = await readBody(sent, method, fullPath);
        const retryAfter = parseRetryAfter(sent.response.headers['retry-after']);
        error = KubeApiError.fromResponse(method, fullPath, status, text, retryAfter);
        if (status === 401 && !refreshedCredentials) {
          // Expired token or rotated exec credential: read the kubeconfig's credentials again.
          refreshedCredentials = true;
          this.#transport.invalidateCredentials();
          attempt--;
          continue;
        }
      } catch (thrown) {
        if (options.signal?.aborted) throw options.signal.reason;
        if (!(thrown instanceof KubeApiError)) throw thrown;
        if (thrown.status === 0) this.#requests.inc({ method: verb, code: 'error' });
        error = thrown;
      }
      const wait = retryDelay(method, error, attempt, this.#options.retry);
      if (wait === undefined) throw error;
      this.logger.debug({ method, path: fullPath, attempt, waitMs: wait, err: error }, 'retrying');
      await sleep(wait, options.signal);
    }
  }
}

function withQuery(path: string, query: Query | undefined): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) params.set(name, String(value));
  }
  const text = params.toString();
  if (text === '') return path;
  return `${path}${path.includes('?') ? '&' : '?'}${text}`;
}
