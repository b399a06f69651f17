// The mark the injector leaves on every Pod it handled at creation. With failurePolicy Ignore an
// unreachable webhook lets Pods through without the proxy settings; a Pod without the mark (in a
// namespace that is not opted out, not opted out itself, not a mirror Pod) is one of those.
import type { V1ObjectMeta } from '@kubernetes/client-node';
import type { Plain } from '@kfx/admission-core';

/** Set to "true" on every Pod the injector handled on CREATE, whether it added anything or not. */
export const INJECTED_ANNOTATION = 'proxy-injector.kfx.dev/injected';

/** Marks `object` (a Pod, or a pod template in a preview) as handled, in place. */
export function markInjected(object: { metadata?: Plain<V1ObjectMeta> | undefined }): void {
  const metadata = (object.metadata ??= {});
  metadata.annotations = { ...metadata.annotations, [INJECTED_ANNOTATION]: 'true' };
}
