import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CRDS } from './objects.js';

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  required?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}
interface Version {
  name: string;
  served: boolean;
  storage: boolean;
  subresources?: unknown;
  schema: { openAPIV3Schema: Schema };
}
interface Crd {
  spec: { scope: string; conversion?: { strategy: string }; versions: Version[] };
}

const crd = parse(readFileSync(CRDS.kubeflowProfile, 'utf8')) as Crd;

/** Every path under `schema` that keeps unknown fields. */
function preserved(schema: Schema, path = ''): string[] {
  const here = schema['x-kubernetes-preserve-unknown-fields'] ? [path] : [];
  const below = Object.entries(schema.properties ?? {}).flatMap(([key, child]) =>
    preserved(child, `${path}.${key}`),
  );
  return [...here, ...below, ...(schema.items ? preserved(schema.items, `${path}[]`) : [])];
}

describe('the Profile CRD the tests install', () => {
  it('has the versions of Kubeflow’s: v1 and v1beta1 served, v1 stored, conversion None', () => {
    expect(crd.spec.scope).toBe('Cluster');
    expect(crd.spec.conversion).toEqual({ strategy: 'None' });
    expect(
      crd.spec.versions.map(({ name, served, storage }) => ({ name, served, storage })),
    ).toEqual([
      { name: 'v1', served: true, storage: true },
      { name: 'v1beta1', served: true, storage: false },
    ]);
    const [v1, v1beta1] = crd.spec.versions;
    // conversion None: both versions hold the same schema, and a status subresource each.
    expect(v1beta1?.schema).toEqual(v1?.schema);
    expect(v1?.subresources).toEqual({ status: {} });
  });

  it('keeps a condition’s type, status and message only, and unknown fields only in a plugin’s spec', () => {
    const schema = crd.spec.versions[0]?.schema.openAPIV3Schema ?? {};
    const condition = schema.properties?.status?.properties?.conditions?.items;
    expect(Object.keys(condition?.properties ?? {}).sort()).toEqual(['message', 'status', 'type']);
    expect(preserved(schema)).toEqual(['.spec.plugins[].spec']);
    const owner = schema.properties?.spec?.properties?.owner;
    expect(owner?.required).toEqual(['kind', 'name']);
    expect(owner?.['x-kubernetes-map-type']).toBe('atomic');
    expect(Object.keys(schema.properties?.spec?.properties ?? {}).sort()).toEqual([
      'owner',
      'plugins',
      'resourceQuotaSpec',
    ]);
  });
});
