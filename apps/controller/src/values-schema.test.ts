// The checked-in chart/values.schema.json is what the zod schemas generate: a reconciler's
// schema that changed without `pnpm run values-schema` fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { valuesSchema } from './values-schema.js';

const file = new URL('../chart/values.schema.json', import.meta.url);

describe('chart/values.schema.json', () => {
  it("holds each reconciler's settings generated from the zod schema kfx-controller checks them with", async () => {
    const current = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    // `pnpm run values-schema` (vitest -u) writes the file; otherwise a difference fails.
    await expect(JSON.stringify(valuesSchema(current), null, 2) + '\n').toMatchFileSnapshot(
      file.pathname,
    );
  });
});
