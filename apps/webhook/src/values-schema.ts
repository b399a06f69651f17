// The chart's values schema (chart/values.schema.json) takes the schema of each configuration
// section (`proxyInjector.config`, `pvcRewriter.config`) from the zod schema kfx-webhook checks
// the section with (@kfx/testenv's chart-schema does the generic part, for both charts).
// `pnpm run values-schema` rewrites the generated parts, and values-schema.test.ts fails while
// the checked-in file differs.
import { helmSchemaOf, withGeneratedParts, type JsonSchema } from '@kfx/testenv';
import type { HandlerFactory } from './webhooks.js';

/** `values` with each handler's `<section>.config` replaced by the schema generated from zod. */
export function valuesSchema(values: JsonSchema, handlers: readonly HandlerFactory[]): JsonSchema {
  return withGeneratedParts(
    values,
    handlers.map((handler) => ({
      path: [handler.section, 'config'],
      schema: {
        description: `The ${handler.section} section of the kfx-webhook configuration (generated from its zod schema).`,
        ...helmSchemaOf(handler.schema),
      },
    })),
  );
}
