// The keep-alive connection pool to the apiserver. It verifies the apiserver with the upstream CA
// and presents no client certificate, so nothing the proxy sends carries an identity of its own.
// A rotated CA gets a new pool; requests in flight finish on the old one.
import https from 'node:https';
import type { Upstream } from './upstream.js';

/** Idle pooled connections close after this long (also retires a replaced pool's sockets). */
const FREE_SOCKET_TIMEOUT_MS = 60_000;

export class UpstreamPool {
  readonly url: URL;
  /** host[:port] for the Host header. */
  readonly host: string;
  /** Path prefix of the upstream URL, without the trailing slash. */
  readonly prefix: string;
  readonly servername: string | undefined;
  #ca: string | undefined;
  #agent: https.Agent;
  readonly #retired: https.Agent[] = [];

  constructor(upstream: Upstream) {
    this.url = upstream.url;
    this.host = upstream.url.host;
    this.prefix = upstream.url.pathname.replace(/\/$/, '');
    this.servername = upstream.servername;
    this.#ca = upstream.ca;
    this.#agent = this.#createAgent();
  }

  get agent(): https.Agent {
    return this.#agent;
  }

  get ca(): string | undefined {
    return this.#ca;
  }

  /** Options for a one-off connection (upgrades), with the same trust as the pool. */
  connectionOptions(): Pick<https.RequestOptions, 'ca' | 'servername' | 'hostname' | 'port'> {
    return {
      hostname: this.url.hostname.replace(/^\[|\]$/g, ''),
      port: Number(this.url.port || 443),
      ...(this.#ca === undefined ? {} : { ca: this.#ca }),
      ...(this.servername === undefined ? {} : { servername: this.servername }),
    };
  }

  /** Trust a new CA from now on. */
  setCa(ca: string): void {
    if (ca === this.#ca) return;
    this.#ca = ca;
    this.#retired.push(this.#agent);
    this.#agent = this.#createAgent();
  }

  close(): void {
    for (const agent of [...this.#retired, this.#agent]) agent.destroy();
  }

  #createAgent(): https.Agent {
    return new https.Agent({
      keepAlive: true,
      keepAliveMsecs: 30_000,
      timeout: FREE_SOCKET_TIMEOUT_MS,
      scheduling: 'lifo',
      maxFreeSockets: 64,
      ...(this.#ca === undefined ? {} : { ca: this.#ca }),
      ...(this.servername === undefined ? {} : { servername: this.servername }),
    });
  }
}
