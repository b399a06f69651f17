// The mark the injector leaves on every Pod it handled at creation, for people reading the Pod.
// It proves nothing: whoever creates a Pod can write it too. The audit of Pods admitted without
// the injector (audit/) therefore judges by the proxy variables in the spec, not by the mark.
import type { V1ObjectMeta } from '@kubernetes/client-node';
import type { Plain } from '@kfx/admission-core';

/** Set to "true" on every Pod the injector handled on CREATE, whether it added anything or not. */
export const INJECTED_ANNOTATION = 'proxy-injector.kfx.dev/injected';

/** Marks `object` (a Pod, or a pod template in a preview) as handled, in place. */
export function markInjected(object: { metadata?: Plain<V1ObjectMeta> | undefined }): void {
  const metadata = (object.metadata ??= {});
  metadata.annotations = { ...metadata.annotations, [INJECTED_ANNOTATION]: 'true' };
}
