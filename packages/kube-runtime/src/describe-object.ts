// How messages name an object: `Kind namespace/name`, `Kind name` when cluster-scoped, and
// `name*` while the apiserver has yet to generate a name from `generateName`.

export interface DescribedMetadata {
  namespace?: string | undefined;
  name?: string | undefined;
  generateName?: string | undefined;
}

/** `ConfigMap team-a/proxy`, `Namespace team-a`, `Pod team-a/trainer-*`, `Pod (unnamed)`. */
export function describeObject(kind: string, metadata: DescribedMetadata = {}): string {
  const { namespace, name, generateName } = metadata;
  let shown = '(unnamed)';
  if (name) shown = name;
  else if (generateName) shown = `${generateName}*`;
  return `${kind} ${namespace ? `${namespace}/` : ''}${shown}`;
}
