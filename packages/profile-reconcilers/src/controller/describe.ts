// How an object is named in conditions, Events and logs: kube-runtime's `Kind namespace/name`.
import { type KubeObject } from '@kfx/kube-runtime/client';
import { describeObject as describeKind } from '@kfx/kube-runtime/serving';

export const describeObject = (object: KubeObject): string =>
  describeKind(object.kind ?? 'object', object.metadata);
