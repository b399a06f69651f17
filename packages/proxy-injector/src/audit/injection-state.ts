// What became of a Pod at admission, as far as the injector's marks tell: it handled it (the
// injected stamp), the Pod opted out, it is a mirror Pod (never touched), or none of these — the
// injector never saw it. With failurePolicy Ignore that is a Pod admitted while the webhook was
// unreachable (or one it failed open on), running without the proxy settings.
import { INJECT_LABEL, isMirrorPod, optedOut } from '../opt-out.js';
import { INJECTED_ANNOTATION } from '../stamp.js';

export type InjectionState = 'injected' | 'opted-out' | 'mirror' | 'missed';

interface Meta {
  metadata?:
    | {
        annotations?: Record<string, string> | undefined;
        labels?: Record<string, string> | undefined;
      }
    | undefined;
}

export function injectionState(pod: Meta): InjectionState {
  if (pod.metadata?.annotations?.[INJECTED_ANNOTATION] === 'true') return 'injected';
  if (optedOut(pod)) return 'opted-out';
  if (isMirrorPod(pod)) return 'mirror';
  return 'missed';
}

/** Whether the webhook is called for Pods of this namespace at all (its label opt-out). */
export function namespaceServed(namespace: Meta | undefined): boolean {
  return namespace?.metadata?.labels?.[INJECT_LABEL]?.trim().toLowerCase() !== 'false';
}
