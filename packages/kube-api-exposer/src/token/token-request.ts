// Mints a bound service-account token through the TokenRequest API: short-lived, for named
// audiences, and optionally bound to a Pod so that it dies with the Pod. Nothing is stored in
// the cluster (unlike a long-lived token Secret).
import { isNotFound, KubeApiError, resources, type KubeClient } from '@kfx/kube-runtime/client';
import type { V1Pod } from '@kubernetes/client-node';
import { unusableOption } from '../options-error.js';

export interface MintTokenOptions {
  namespace: string;
  serviceAccount: string;
  /** Audiences the token is valid for; empty means the apiserver's own (--api-audiences). */
  audiences?: readonly string[] | undefined;
  /** Requested lifetime; the apiserver accepts at least 600 and may cap it. */
  expirationSeconds: number;
  /** Bind the token to this Pod (same namespace, running as the service account). */
  pod?: string | undefined;
  /**
   * The Pod's uid, when the caller has checked the Pod already (that it runs as the service
   * account): the Pod is then not read again.
   */
  podUid?: string | undefined;
}

export interface MintedToken {
  token: string;
  /** RFC 3339, as the apiserver granted it (it may shorten the lifetime asked for). */
  expirationTimestamp: string;
  audiences: string[];
  /** `namespace/name` of the Pod the token is bound to. */
  boundTo: string | undefined;
}

/** The TokenRequest as it travels (timestamps are strings on the wire). */
interface TokenRequestWire {
  apiVersion: 'authentication.k8s.io/v1';
  kind: 'TokenRequest';
  spec: {
    audiences: string[];
    expirationSeconds: number;
    boundObjectRef?: { apiVersion: string; kind: string; name: string; uid?: string };
  };
  status?: { token?: string; expirationTimestamp?: string };
}

export async function mintToken(
  client: KubeClient,
  options: MintTokenOptions,
): Promise<MintedToken> {
  const { namespace, serviceAccount } = options;
  const who = `service account ${namespace}/${serviceAccount}`;
  const request: TokenRequestWire = {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: {
      audiences: [...(options.audiences ?? [])],
      expirationSeconds: options.expirationSeconds,
    },
  };
  if (options.pod !== undefined && options.podUid !== undefined) {
    request.spec.boundObjectRef = {
      apiVersion: 'v1',
      kind: 'Pod',
      name: options.pod,
      uid: options.podUid,
    };
  } else if (options.pod !== undefined) {
    const pod = await client
      .get<V1Pod>(resources.pods, options.pod, { namespace })
      .catch((error: unknown) => {
        if (isNotFound(error)) {
          throw unusableOption(
            'mintToken',
            'pod',
            `${options.pod}: no such Pod in namespace ${namespace}`,
            error,
          );
        }
        throw error;
      });
    const podAccount = pod.spec?.serviceAccountName ?? 'default';
    if (podAccount !== serviceAccount) {
      throw unusableOption(
        'mintToken',
        'pod',
        `${options.pod} runs as service account "${podAccount}", not "${serviceAccount}": a token can only be bound to a Pod of its own service account`,
      );
    }
    request.spec.boundObjectRef = {
      apiVersion: 'v1',
      kind: 'Pod',
      name: options.pod,
      ...(pod.metadata?.uid ? { uid: pod.metadata.uid } : {}),
    };
  }
  const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts/${encodeURIComponent(serviceAccount)}/token`;
  let answer: TokenRequestWire;
  try {
    answer = await client.request<TokenRequestWire>('POST', path, { body: request });
  } catch (error) {
    if (isNotFound(error)) {
      throw new Error(
        `${who} does not exist: create it first (kubectl -n ${namespace} create serviceaccount ${serviceAccount})`,
        { cause: error },
      );
    }
    if (error instanceof KubeApiError && error.status === 403) {
      throw new Error(
        `not allowed to mint tokens for ${who}: the identity running this needs "create" on serviceaccounts/token in ${namespace} (${error.message})`,
        { cause: error },
      );
    }
    throw error;
  }
  const token = answer.status?.token;
  const expirationTimestamp = answer.status?.expirationTimestamp;
  if (!token || !expirationTimestamp) {
    throw new Error(`the apiserver answered the TokenRequest for ${who} without a token`);
  }
  return {
    token,
    expirationTimestamp,
    audiences: answer.spec.audiences,
    boundTo: options.pod === undefined ? undefined : `${namespace}/${options.pod}`,
  };
}
