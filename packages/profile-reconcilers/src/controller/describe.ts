// How an object is named in conditions, Events and logs: kube-runtime's `Kind namespace/name`.
import { describeObject as describeKind, type KubeObject } from '@kfx/kube-runtime';

export const describeObject = (object: KubeObject): string =>
  describeKind(object.kind ?? 'object', object.metadata);
