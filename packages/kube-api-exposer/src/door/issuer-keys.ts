// The public keys the cluster signs service-account tokens with, from the apiserver's own
// discovery (`/.well-known/openid-configuration` for the issuer, `/openid/v1/jwks` for the keys:
// every ServiceAccount may read them), so that the door checks a token's signature here, without
// sending the token to the apiserver. Fetched on first use, again when a token names a key not
// seen yet (a rotation: at most every 30 s) and every 5 minutes.
import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { KubeClient } from '@kfx/kube-runtime/client';
import { signedBy, type Jwt } from './jwt.js';

const REFRESH_MS = 5 * 60_000;
const UNKNOWN_KEY_REFRESH_MS = 30_000;

interface KeySet {
  issuer: string;
  keys: { kid: string | undefined; key: KeyObject }[];
  fetchedAt: number;
}

export class IssuerKeys {
  readonly #client: KubeClient;
  #current: KeySet | undefined;
  #fetching: Promise<KeySet> | undefined;

  constructor(client: KubeClient) {
    this.#client = client;
  }

  /** The issuer the apiserver names (`--service-account-issuer`). */
  async issuer(): Promise<string> {
    return (await this.#keys(false)).issuer;
  }

  /** Whether one of the cluster's keys signed `jwt` (refetching once if its key is unknown). */
  async verify(jwt: Jwt): Promise<boolean> {
    const set = await this.#keys(false);
    if (matches(set, jwt)) return true;
    const kid = typeof jwt.header.kid === 'string' ? jwt.header.kid : undefined;
    const known = kid !== undefined && set.keys.some((k) => k.kid === kid);
    if (known || Date.now() - set.fetchedAt < UNKNOWN_KEY_REFRESH_MS) return false;
    return matches(await this.#keys(true), jwt);
  }

  #keys(force: boolean): Promise<KeySet> {
    const current = this.#current;
    if (!force && current !== undefined && Date.now() - current.fetchedAt < REFRESH_MS)
      return Promise.resolve(current);
    this.#fetching ??= this.#fetch().finally(() => (this.#fetching = undefined));
    return this.#fetching;
  }

  async #fetch(): Promise<KeySet> {
    const discovery = await this.#client.request<{ issuer?: unknown }>(
      'GET',
      '/.well-known/openid-configuration',
    );
    const jwks = JSON.parse(
      await this.#client.requestText('GET', '/openid/v1/jwks', {
        accept: 'application/jwk-set+json',
      }),
    ) as { keys?: JsonWebKey[] };
    if (typeof discovery.issuer !== 'string' || !Array.isArray(jwks.keys)) {
      throw new Error(
        "the apiserver's service-account issuer discovery answered without an issuer or keys",
      );
    }
    const keys = jwks.keys.flatMap((jwk) => {
      try {
        return [
          {
            kid: typeof jwk.kid === 'string' ? jwk.kid : undefined,
            key: createPublicKey({ key: jwk, format: 'jwk' }),
          },
        ];
      } catch {
        return [];
      }
    });
    this.#current = { issuer: discovery.issuer, keys, fetchedAt: Date.now() };
    return this.#current;
  }
}

function matches(set: KeySet, jwt: Jwt): boolean {
  const kid = typeof jwt.header.kid === 'string' ? jwt.header.kid : undefined;
  const candidates = kid === undefined ? set.keys : set.keys.filter((k) => k.kid === kid);
  return candidates.some(({ key }) => signedBy(jwt, key));
}
