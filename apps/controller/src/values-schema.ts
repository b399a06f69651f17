// The chart's values schema (chart/values.schema.json) takes the schema of each reconciler's
// settings (`config.reconcilers.<name>`) from the zod schema kfx-controller checks them with
// (@kfx/testenv's chart-schema does the generic part, for both charts), so that `helm lint` and
// `helm install` refuse what the controller would refuse at start. `pnpm run values-schema`
// rewrites the generated parts, and values-schema.test.ts fails while the checked-in file differs.
import { BUILT_IN_CONFIG_SCHEMAS, ceilingsSchema } from '@kfx/profile-reconcilers';
import { helmSchemaOf, withGeneratedParts, type JsonSchema } from '@kfx/testenv';
import type { z } from 'zod';

/**
 * A reconciler's entry: its settings, or `false` to turn it off, or (when it has defaults for
 * everything) nothing, which YAML reads as null.
 */
function reconcilerSchema(name: string, schema: z.ZodType): JsonSchema {
  const generated = helmSchemaOf(schema);
  if (generated.type !== 'object') {
    throw new Error(`the settings of reconciler ${name} are not an object: cannot allow false`);
  }
  const empty = schema.safeParse(undefined).success;
  return {
    description: `The ${name} reconciler's settings${empty ? ' (empty for its defaults)' : ''}, or false to turn it off (generated from its zod schema).`,
    ...generated,
    type: ['object', ...(empty ? ['null'] : []), 'boolean'],
    not: { const: true },
  };
}

/**
 * `values` with `config.reconcilers.<name>` of each built-in reconciler, and `config.ceilings`,
 * generated from zod.
 */
export function valuesSchema(values: JsonSchema): JsonSchema {
  return withGeneratedParts(values, [
    ...[...BUILT_IN_CONFIG_SCHEMAS].map(([name, schema]) => ({
      path: ['config', 'reconcilers', name],
      schema: reconcilerSchema(name, schema),
    })),
    {
      path: ['config', 'ceilings'],
      schema: {
        description:
          'What a Profile may raise beyond the configured values: Pod Security levels, quotas, tenant-switchable network policies, cloud identities (generated from its zod schema).',
        ...helmSchemaOf(ceilingsSchema),
      },
    },
  ]);
}
