// The door: what the exposer lets in from the outside network. A token bound to a Pod (what the
// kubelet mounts into Pods, and what interLink's virtual kubelet requests for Pods on a remote
// node) is let through only when its Pod runs on one of the remote nodes: a token of an
// in-cluster Pod presented from outside is refused (403, naming the Pod), and so is one whose Pod
// is gone. A remote Pod's token, long-lived as interLink makes it, never goes to the apiserver:
// its signature is checked here against the cluster's keys (issuer-keys.ts), its Pod read
// (pod-placement.ts), and the request carries instead a token of minutes for the same
// ServiceAccount, bound to the same Pod (exchanged-tokens.ts). Its own expiry is not what ends
// it: its Pod is, so a long job keeps working where the apiserver caps token lifetimes. Tokens
// bound to no Pod (the plugin kubeconfigs `mintKubeconfig` makes, people's tokens) pass as they
// are, for the apiserver to judge.
import { createHash } from 'node:crypto';
import type { KubeClient } from '@kfx/kube-runtime/client';
import { messageOf } from '@kfx/kube-runtime/serving';
import type { ProxyMetrics } from '../proxy/metrics.js';
import type { RefusalLog } from '../proxy/refusal-log.js';
import type { ProxyStatus } from '../proxy/status-response.js';
import { ExchangedTokens } from './exchanged-tokens.js';
import { IssuerKeys } from './issuer-keys.js';
import { parseJwt, type Jwt } from './jwt.js';
import { forAudience, namesAPod, podBinding, type PodBinding } from './pod-binding.js';
import { PodPlacements } from './pod-placement.js';

export interface DoorOptions {
  /** Names of the nodes whose Pods' tokens pass (exchanged); none: no Pod-bound token passes. */
  remoteNodes: readonly string[];
  /** `remote` (the door above) or `any`: Pod-bound tokens pass as they are, like any other. */
  podTokens: 'remote' | 'any';
  /** The exposer's own credentials, for the keys, the Pods and the TokenRequests. */
  client: KubeClient | undefined;
  /** Lifetime asked for the tokens forwarded instead (the apiserver grants at least 600 s). */
  exchangeLifetimeSeconds: number;
  /** The audiences the apiserver accepts (`--api-audiences`); default its issuer. */
  apiAudiences: readonly string[] | undefined;
  metrics: Pick<ProxyMetrics, 'podTokens'>;
  refusals: RefusalLog;
}

export type Admission = { token: string; refused?: undefined } | { refused: ProxyStatus };

type Decision = 'exchanged' | 'refused_in_cluster' | 'refused_gone' | 'refused_invalid' | 'error';

/** Future `nbf` tolerated, for clocks that differ a little. */
const CLOCK_SKEW_SECONDS = 60;
/** Tokens whose signature, issuer and audience were found good are not checked again for this long. */
const VERIFIED_MS = 5 * 60_000;
const VERIFIED_KEPT = 4096;

export class Door {
  readonly #options: DoorOptions;
  readonly #keys: IssuerKeys | undefined;
  readonly #pods: PodPlacements | undefined;
  readonly #exchanged: ExchangedTokens | undefined;
  /** When each token (by hash) was last found good, least recently used first. */
  readonly #verified = new Map<string, number>();

  constructor(options: DoorOptions) {
    this.#options = options;
    const { client } = options;
    if (client !== undefined && options.remoteNodes.length > 0) {
      this.#keys = new IssuerKeys(client);
      this.#pods = new PodPlacements(client);
      this.#exchanged = new ExchangedTokens(client, options.exchangeLifetimeSeconds);
    }
  }

  /** The token as a JWT when the door must judge it first; undefined: it passes as it is. */
  concerns(token: string): Jwt | undefined {
    if (this.#options.podTokens === 'any') return undefined;
    const jwt = parseJwt(token);
    return jwt !== undefined && namesAPod(jwt) ? jwt : undefined;
  }

  /** What to forward in place of a Pod-bound token, or the refusal. */
  async admit(jwt: Jwt, remoteAddress: string | undefined): Promise<Admission> {
    const binding = podBinding(jwt);
    if (binding === undefined)
      return this.#refuse(
        'refused_invalid',
        401,
        'the token names a Pod but not as Kubernetes does',
      );
    const pod = `${binding.namespace}/${binding.pod.name}`;
    const { remoteNodes } = this.#options;
    if (remoteNodes.length === 0 || this.#keys === undefined) {
      return this.#refuse(
        'refused_in_cluster',
        403,
        `the token is bound to Pod ${pod}: this exposer lets through Pod tokens only of Pods on its remote nodes, and it has none (its remoteNodes option)`,
        { pod, remoteAddress },
      );
    }
    try {
      const invalid = await this.#invalid(jwt);
      if (invalid !== undefined) return this.#refuse('refused_invalid', 401, invalid);
      const placement = await this.#pods?.get(binding.namespace, binding.pod.name);
      if (placement?.uid !== binding.pod.uid) {
        return this.#refuse(
          'refused_gone',
          403,
          `the token is bound to Pod ${pod} (uid ${binding.pod.uid}), which is gone: a Pod's token ends with its Pod`,
          { pod, remoteAddress },
        );
      }
      if (placement.nodeName === undefined || !remoteNodes.includes(placement.nodeName)) {
        return this.#refuse(
          'refused_in_cluster',
          403,
          `the token is bound to Pod ${pod}, which runs ${placement.nodeName === undefined ? 'on no node yet' : `on node ${placement.nodeName}`} inside the cluster: only Pods on the remote nodes (${remoteNodes.join(', ')}) may come in through this exposer`,
          { pod, node: placement.nodeName, remoteAddress },
        );
      }
      if (placement.serviceAccount !== binding.serviceAccount.name) {
        return this.#refuse(
          'refused_invalid',
          403,
          `the token names ServiceAccount ${binding.serviceAccount.name} of Pod ${pod}, which runs as ${placement.serviceAccount}`,
          { pod, remoteAddress },
        );
      }
      const token = await this.#exchange(binding);
      this.#options.metrics.podTokens.inc({ decision: 'exchanged' });
      return { token };
    } catch (error) {
      return this.#refuse(
        'error',
        503,
        `could not check the token of Pod ${pod}: ${messageOf(error)} (the exposer's ServiceAccount needs get on pods and create on serviceaccounts/token in namespace ${binding.namespace}); retry shortly`,
        { pod, remoteAddress },
      );
    }
  }

  /** Why the token's signature, issuer, audience or start disqualify it; undefined if none. */
  async #invalid(jwt: Jwt): Promise<string | undefined> {
    const hash = createHash('sha256')
      .update(jwt.signingInput)
      .update(jwt.signature)
      .digest('base64url');
    const at = this.#verified.get(hash);
    if (at !== undefined && Date.now() - at < VERIFIED_MS) return undefined;
    const invalid = await this.#check(jwt);
    this.#verified.delete(hash);
    if (invalid === undefined) {
      this.#verified.set(hash, Date.now());
      if (this.#verified.size > VERIFIED_KEPT) {
        const oldest = this.#verified.keys().next().value;
        if (oldest !== undefined) this.#verified.delete(oldest);
      }
    }
    return invalid;
  }

  async #check(jwt: Jwt): Promise<string | undefined> {
    const keys = this.#keys;
    if (keys === undefined) return 'the exposer cannot check tokens';
    if (!(await keys.verify(jwt)))
      return "Unauthorized: the token is not signed by the cluster's service-account issuer";
    const issuer = await keys.issuer();
    if (jwt.claims.iss !== issuer)
      return `Unauthorized: the token's issuer is not the cluster's (${issuer})`;
    if (!forAudience(jwt, this.#options.apiAudiences ?? [issuer]))
      return 'Unauthorized: the token is not for the Kubernetes API (its audience)';
    const nbf = jwt.claims.nbf;
    if (typeof nbf === 'number' && nbf > Date.now() / 1000 + CLOCK_SKEW_SECONDS)
      return 'Unauthorized: the token is not valid yet';
    return undefined;
  }

  #exchange(binding: PodBinding): Promise<string> {
    if (this.#exchanged === undefined) throw new Error('the exposer cannot request tokens');
    return this.#exchanged.tokenFor(binding);
  }

  #refuse(
    decision: Decision,
    code: number,
    message: string,
    fields: Record<string, unknown> = {},
  ): Admission {
    this.#options.metrics.podTokens.inc({ decision });
    if (decision !== 'refused_invalid')
      this.#options.refusals.refused(`door:${decision}`, fields, `Pod token refused: ${message}`);
    return { refused: { code, message } };
  }
}
