// How messages and logs name the object under admission: "Pod team-a/notebook-0". On CREATE with
// metadata.generateName the apiserver has not picked a name yet, so the prefix is shown instead.
import { describeObject } from '@kfx/kube-runtime/serving';
import type { AdmissionRequest } from './admission-review.js';

interface Metadata {
  name?: unknown;
  generateName?: unknown;
}

function metadataOf(object: object | null): Metadata {
  const metadata = (object as { metadata?: unknown } | null)?.metadata;
  return typeof metadata === 'object' && metadata !== null ? metadata : {};
}

/** The object's name, or `<generateName>*` when the apiserver has yet to generate it. */
export function objectName(request: AdmissionRequest<object>): string {
  if (request.name) return request.name;
  const metadata = metadataOf(request.object ?? request.oldObject);
  if (typeof metadata.name === 'string' && metadata.name !== '') return metadata.name;
  if (typeof metadata.generateName === 'string' && metadata.generateName !== '') {
    return `${metadata.generateName}*`;
  }
  return '(unnamed)';
}

/** `Kind namespace/name`, or `Kind name` for cluster-scoped objects. */
export function objectRef(request: AdmissionRequest<object>): string {
  return describeObject(request.kind.kind, {
    namespace: request.namespace,
    name: objectName(request),
  });
}
