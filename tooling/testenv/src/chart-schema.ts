// A chart's values.schema.json with parts generated from the zod schemas its binary checks the
// same values with, so that `helm lint` and `helm install` refuse what the binary would refuse at
// start instead of leaving it to the Pod's log. The chart's own keys stay written by hand in the
// file; a chart's values-schema test rewrites the generated parts (vitest -u) and fails while the
// checked-in file differs.
import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

/**
 * Helm checks `pattern` with Go's regexp, which has no lookahead: the length guard that starts
 * the DNS-name patterns (`^(?=.{1,253}$)…`) becomes `maxLength`; any other lookaround throws.
 */
function forHelm(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(forHelm);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) out[key] = forHelm(value);
  if (typeof out.pattern === 'string') {
    let pattern = out.pattern;
    const guard = /^\^\(\?=\.\{1,(\d+)\}\$\)/.exec(pattern);
    if (guard) {
      pattern = '^' + pattern.slice(guard[0].length);
      out.maxLength = Number(guard[1]);
    }
    if (pattern.includes('(?')) throw new Error(`a pattern Helm cannot check: ${pattern}`);
    out.pattern = pattern;
  }
  return out;
}

/** The JSON Schema (draft-7, as Helm reads it) of the input a zod schema accepts. */
export function helmSchemaOf(schema: z.ZodType): JsonSchema {
  const generated = z.toJSONSchema(schema, { target: 'draft-7', io: 'input' });
  delete generated.$schema;
  return forHelm(generated) as JsonSchema;
}

/** One generated part: where in the values it goes, and its schema. */
export interface GeneratedPart {
  /** The value's key path from the root, e.g. `['proxyInjector', 'config']`. */
  path: readonly string[];
  schema: JsonSchema;
}

/**
 * `values` (a parsed values.schema.json) with each part's schema put at its path. The parent
 * of every path must already be written in the file as an object with `properties`, so that a
 * renamed key fails here instead of adding a schema nothing reads.
 */
export function withGeneratedParts(
  values: JsonSchema,
  parts: readonly GeneratedPart[],
): JsonSchema {
  const copy = structuredClone(values);
  for (const { path, schema } of parts) {
    const key = path.at(-1);
    if (key === undefined) throw new Error('a generated part needs a path');
    let node: JsonSchema = copy;
    for (const [depth, step] of path.slice(0, -1).entries()) {
      const next = (node.properties as Record<string, JsonSchema> | undefined)?.[step];
      if (!next?.properties) {
        throw new Error(
          `values.schema.json has no properties.${path.slice(0, depth + 1).join('.properties.')}.properties`,
        );
      }
      node = next;
    }
    const properties = node.properties as Record<string, JsonSchema> | undefined;
    if (!properties) throw new Error(`values.schema.json has no properties at the root`);
    properties[key] = schema;
  }
  return copy;
}
