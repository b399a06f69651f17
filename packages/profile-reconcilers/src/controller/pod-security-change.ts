// Tells when a reconcile changes what Pod Security a Profile's namespace is held to (a new
// configuration, an upgrade of kfx, a Profile label within the ceilings): an Event on the
// Profile and a log line, saying what it was and what it is now. An upgrade that starts or stops
// enforcing in a namespace must never do so in silence.
import type { KubeObject } from '@kfx/kube-runtime/client';
import type { EventInput } from '@kfx/kube-runtime/controller';
import type { Logger } from '@kfx/kube-runtime/serving';
import { describePodSecurity, enforcedRank } from '../pod-security/namespace-levels.js';

/** The Event for a namespace whose Pod Security labels go from `before` to `after`, if they change. */
export function podSecurityChange(
  namespace: string,
  before: KubeObject | undefined,
  after: KubeObject | undefined,
  logger: Logger,
): EventInput | undefined {
  if (!before || !after) return undefined;
  const was = describePodSecurity(before.metadata?.labels);
  const now = describePodSecurity(after.metadata?.labels);
  if (was === now) return undefined;
  const lowered = enforcedRank(after.metadata?.labels) < enforcedRank(before.metadata?.labels);
  const message = `namespace ${namespace}: Pod Security is now ${now} (was ${was})`;
  if (lowered) logger.warn({ namespace, was, now }, 'Pod Security enforcement lowered');
  else logger.info({ namespace, was, now }, 'Pod Security changed');
  return {
    type: lowered ? 'Warning' : 'Normal',
    reason: lowered ? 'PodSecurityLowered' : 'PodSecurityChanged',
    message,
  };
}
