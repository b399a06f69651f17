// How a Pod or a namespace says "leave me alone". The Pod annotation is read by the handler; the
// namespace label is matched by the apiserver itself through the webhook's namespaceSelector, so
// an opted-out namespace costs no webhook call at all.

/** Pod annotation (and namespace label); the value `"false"` opts out. */
export const INJECT_ANNOTATION = 'proxy-injector.kfx.dev/inject';
export const INJECT_LABEL = INJECT_ANNOTATION;

interface Annotated {
  metadata?: { annotations?: Record<string, string> | undefined } | undefined;
}

export function optedOut(object: Annotated): boolean {
  return object.metadata?.annotations?.[INJECT_ANNOTATION]?.trim().toLowerCase() === 'false';
}

/** Set by the kubelet on the API copy of a static Pod. */
export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

/**
 * A mirror Pod runs what the node's static manifest says; injecting into its API copy would only
 * make the API misreport the containers' environment.
 */
export function isMirrorPod(object: Annotated): boolean {
  return object.metadata?.annotations?.[MIRROR_POD_ANNOTATION] !== undefined;
}
