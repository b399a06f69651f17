// Tokens the apiserver has accepted, so that a request is counted for an identity only once the
// apiserver has proved its token (identity.ts). An answer to a request proves its token (any
// answer but 401 and server errors); a long-running request, which takes a place under its
// identity's cap before it goes upstream, has its token checked first when no answer has proved
// it yet: `GET /version` with that token, which any authenticated caller may read and which
// costs the apiserver next to nothing. A forged token is then refused (401) before it takes any
// place, and never counts for the identity it claims. Concurrent checks of one token are one
// request. The memory is bounded: the most recently used tokens are kept, by hash, with their
// identity (a few hundred bytes each).
import { createHash } from 'node:crypto';
import https from 'node:https';
import { callerIdentity, provesCredential, type CallerIdentity } from './identity.js';
import type { ProxyMetrics } from './metrics.js';
import type { ProxyStatus } from './status-response.js';
import { upstreamFailure } from './upstream-errors.js';
import type { UpstreamPool } from './upstream-pool.js';

export type TokenCheck =
  { identity: CallerIdentity; refused?: undefined } | { refused: ProxyStatus };

/** Tokens remembered at most; the least recently used go first. */
const PROVEN_TOKENS_KEPT = 4096;
/** How long a check may take before the request is answered 503. */
const CHECK_TIMEOUT_MS = 10_000;

const hashOf = (token: string) => createHash('sha256').update(token).digest('base64url');

export class ProvenTokens {
  /** Identities by token hash, least recently used first. */
  readonly #proven = new Map<string, CallerIdentity>();
  readonly #checking = new Map<string, Promise<TokenCheck>>();
  readonly #pool: UpstreamPool;
  readonly #metrics: Pick<ProxyMetrics, 'credentialChecks'>;
  readonly #kept: number;

  constructor(
    pool: UpstreamPool,
    metrics: Pick<ProxyMetrics, 'credentialChecks'>,
    kept = PROVEN_TOKENS_KEPT,
  ) {
    this.#pool = pool;
    this.#metrics = metrics;
    this.#kept = kept;
  }

  /** The apiserver answered a request that carried `token` with `status`. */
  answered(token: string, status: number, method: string): void {
    if (status === 401) this.#proven.delete(hashOf(token));
    else if (provesCredential(status, method)) this.#remember(hashOf(token), token);
  }

  /** A token the exposer was given by the apiserver itself (the door's exchange): proved. */
  vouch(token: string): void {
    this.#remember(hashOf(token), token);
  }

  /** The identity of `token`, proved by an earlier answer or by asking the apiserver now. */
  identify(token: string): Promise<TokenCheck> {
    const hash = hashOf(token);
    const known = this.#proven.get(hash);
    if (known !== undefined) {
      this.#proven.delete(hash);
      this.#proven.set(hash, known);
      return Promise.resolve({ identity: known });
    }
    let checking = this.#checking.get(hash);
    if (checking === undefined) {
      checking = this.#check(hash, token).finally(() => this.#checking.delete(hash));
      this.#checking.set(hash, checking);
    }
    return checking;
  }

  #remember(hash: string, token: string): CallerIdentity {
    const identity = this.#proven.get(hash) ?? callerIdentity(token);
    this.#proven.delete(hash);
    this.#proven.set(hash, identity);
    if (this.#proven.size > this.#kept) {
      const oldest = this.#proven.keys().next().value;
      if (oldest !== undefined) this.#proven.delete(oldest);
    }
    return identity;
  }

  async #check(hash: string, token: string): Promise<TokenCheck> {
    let status: number;
    try {
      status = await this.#askVersion(token);
    } catch (error) {
      this.#metrics.credentialChecks.inc({ result: 'error' });
      const failure = upstreamFailure(error as Error, this.#pool.url);
      return {
        refused: {
          ...failure,
          message: `could not check the credential with the apiserver: ${failure.message}`,
        },
      };
    }
    if (provesCredential(status, 'GET')) {
      this.#metrics.credentialChecks.inc({ result: 'accepted' });
      return { identity: this.#remember(hash, token) };
    }
    this.#metrics.credentialChecks.inc({ result: status === 401 ? 'refused' : 'error' });
    return {
      refused:
        status === 401
          ? { code: 401, message: 'Unauthorized: the apiserver did not accept the bearer token' }
          : {
              code: 503,
              message: `could not check the credential with the apiserver: it answered ${String(status)}; retry shortly`,
              retryAfterSeconds: 1,
            },
    };
  }

  #askVersion(token: string): Promise<number> {
    const pool = this.#pool;
    return new Promise((resolve, reject) => {
      const request = https.request({
        ...pool.connectionOptions(),
        agent: pool.agent,
        method: 'GET',
        path: `${pool.prefix}/version`,
        headers: { Host: pool.host, Accept: 'application/json', Authorization: `Bearer ${token}` },
        setHost: false,
        timeout: CHECK_TIMEOUT_MS,
      });
      request.once('timeout', () => {
        request.destroy(
          Object.assign(new Error(`no answer within ${String(CHECK_TIMEOUT_MS / 1000)} s`), {
            code: 'ETIMEDOUT',
          }),
        );
      });
      request.once('response', (response) => {
        response.resume();
        response.once('end', () => {
          resolve(response.statusCode ?? 0);
        });
        response.once('error', reject);
      });
      request.once('error', reject);
      request.end();
    });
  }
}
