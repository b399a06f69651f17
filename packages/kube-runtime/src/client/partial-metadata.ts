// Lists and watches that bring only each object's metadata (the API server's
// PartialObjectMetadata, as controller-runtime's metadata-only caches use): for a cache of a kind
// anyone may fill with large objects (a tenant's Secrets of a megabyte each), only the metadata
// crosses the wire and is parsed, never the content. The server answers with the kind
// `PartialObjectMetadata`; the objects are given back the kind they are, so that a cache of them
// looks like any other (without the fields outside `metadata`).
import { apiVersionOf, type KubeObject, type ResourceRef } from './resources.js';

const AS = 'g=meta.k8s.io;v=v1';

/** Accept for a list of metadata only; plain JSON where a server would not offer it. */
export const METADATA_LIST_ACCEPT = `application/json;as=PartialObjectMetadataList;${AS},application/json`;

/** Accept for a watch (or a GET) of metadata only. */
export const METADATA_ACCEPT = `application/json;as=PartialObjectMetadata;${AS},application/json`;

/** The object with the apiVersion and kind of `ref` in place of PartialObjectMetadata's. */
export function asKindOf<T extends KubeObject>(ref: ResourceRef, object: T): T {
  object.apiVersion = apiVersionOf(ref);
  object.kind = ref.kind;
  return object;
}
