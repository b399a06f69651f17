// The chart's values schema (chart/values.schema.json) takes the schema of each configuration
// section (`proxyInjector.config`, `pvcRewriter.config`) from the zod schema kfx-webhook checks
// the section with, so that `helm lint` and `helm install` refuse what the binary would refuse
// at start instead of leaving it to the Pod's log. The chart's own keys stay written by hand in
// the file; `pnpm run values-schema` rewrites the generated parts, and values-schema.test.ts
// fails while the checked-in file differs.
import { z } from 'zod';
import type { HandlerFactory } from './webhooks.js';

type JsonSchema = Record<string, unknown>;

/**
 * Helm checks `pattern` with Go's regexp, which has no lookahead: the length guard that starts
 * the DNS-name patterns (`^(?=.{1,253}$)…`) becomes `maxLength`.
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

/** The JSON Schema of one section, as a value under the chart's `<section>.config`. */
function sectionSchema(schema: z.ZodType): JsonSchema {
  const generated = z.toJSONSchema(schema, { target: 'draft-7', io: 'input' });
  delete generated.$schema;
  return forHelm(generated) as JsonSchema;
}

/** `values` with each handler's `<section>.config` replaced by the schema generated from zod. */
export function valuesSchema(values: JsonSchema, handlers: readonly HandlerFactory[]): JsonSchema {
  const copy = structuredClone(values) as { properties: Record<string, JsonSchema> };
  for (const handler of handlers) {
    const section = copy.properties[handler.section] as { properties?: JsonSchema } | undefined;
    if (!section?.properties) {
      throw new Error(`values.schema.json has no properties.${handler.section}.properties`);
    }
    section.properties.config = {
      description: `The ${handler.section} section of the kfx-webhook configuration (generated from its zod schema).`,
      ...sectionSchema(handler.schema),
    };
  }
  return copy;
}
