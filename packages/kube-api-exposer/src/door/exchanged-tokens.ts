// The short-lived tokens the door forwards in place of remote Pods' long-lived ones: requested
// through the TokenRequest API for the same ServiceAccount, bound to the same Pod (so each dies
// with its Pod), kept per Pod and requested again once less than a third of a token's life is
// left. Concurrent requests of one Pod share one TokenRequest. At most `kept` Pods' tokens are
// kept (about 1.5 KiB each), the least recently used forgotten first.
import type { KubeClient } from '@kfx/kube-runtime/client';
import { mintToken } from '../token/token-request.js';
import type { PodBinding } from './pod-binding.js';

interface Exchanged {
  token: string;
  renewAt: number;
}

export class ExchangedTokens {
  readonly #client: KubeClient;
  readonly #lifetimeSeconds: number;
  readonly #kept: number;
  readonly #tokens = new Map<string, Exchanged>();
  readonly #requesting = new Map<string, Promise<string>>();

  constructor(client: KubeClient, lifetimeSeconds: number, kept = 4096) {
    this.#client = client;
    this.#lifetimeSeconds = lifetimeSeconds;
    this.#kept = kept;
  }

  /** A token of `binding`'s ServiceAccount bound to its Pod, valid for a while yet. */
  tokenFor(binding: PodBinding): Promise<string> {
    const key = binding.pod.uid;
    const kept = this.#tokens.get(key);
    if (kept !== undefined && Date.now() < kept.renewAt) {
      this.#tokens.delete(key);
      this.#tokens.set(key, kept);
      return Promise.resolve(kept.token);
    }
    let requesting = this.#requesting.get(key);
    if (requesting === undefined) {
      requesting = this.#request(binding).finally(() => this.#requesting.delete(key));
      this.#requesting.set(key, requesting);
    }
    return requesting;
  }

  async #request(binding: PodBinding): Promise<string> {
    const minted = await mintToken(this.#client, {
      namespace: binding.namespace,
      serviceAccount: binding.serviceAccount.name,
      expirationSeconds: this.#lifetimeSeconds,
      pod: binding.pod.name,
      podUid: binding.pod.uid,
    });
    const now = Date.now();
    // The apiserver may grant less than asked: renew after two thirds of what it granted.
    const granted = Math.max(0, Date.parse(minted.expirationTimestamp) - now);
    this.#tokens.delete(binding.pod.uid);
    this.#tokens.set(binding.pod.uid, { token: minted.token, renewAt: now + (granted * 2) / 3 });
    if (this.#tokens.size > this.#kept) {
      const oldest = this.#tokens.keys().next().value;
      if (oldest !== undefined) this.#tokens.delete(oldest);
    }
    return minted.token;
  }
}
