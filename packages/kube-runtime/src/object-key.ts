// Work-queue keys: `namespace/name` for namespaced objects, `name` for cluster-scoped ones,
// the same convention as client-go's MetaNamespaceKeyFunc.

export interface ObjectRef {
  namespace?: string | undefined;
  name: string;
}

interface HasMetadata {
  metadata?: { namespace?: string | undefined; name?: string | undefined } | undefined;
}

export function objectKey(obj: HasMetadata): string {
  const name = obj.metadata?.name;
  if (!name) throw new Error('objectKey: the object has no metadata.name');
  const namespace = obj.metadata?.namespace;
  return namespace ? `${namespace}/${name}` : name;
}

export function parseObjectKey(key: string): ObjectRef {
  const slash = key.indexOf('/');
  if (slash < 0) return { name: key };
  if (slash === 0 || slash === key.length - 1 || key.includes('/', slash + 1)) {
    throw new Error(`parseObjectKey: ${JSON.stringify(key)} is not "name" or "namespace/name"`);
  }
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
