// How a Pod or a namespace says "leave me alone". The Pod annotation is read by the handler; the
// namespace label is matched by the apiserver itself through the webhook's namespaceSelector, so
// an opted-out namespace costs no webhook call at all.

/** Pod annotation; the value `"false"` opts the Pod out. */
export const INJECT_ANNOTATION = 'proxy-injector.kfx.dev/inject';
/** Namespace label (the same key as the Pod annotation); the value `"false"` opts it out. */
export const INJECT_LABEL = 'proxy-injector.kfx.dev/inject';

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
