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
