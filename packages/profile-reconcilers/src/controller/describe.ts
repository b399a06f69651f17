// How an object is named in conditions, Events and logs: `Kind namespace/name`.
import type { KubeObject } from '@kfx/kube-runtime';

export const describeObject = (object: KubeObject): string =>
  `${object.kind ?? ''} ${[object.metadata?.namespace, object.metadata?.name].filter(Boolean).join('/')}`;
