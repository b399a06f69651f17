#!/usr/bin/env node
// The kfx-testenv command: the built CLI. This file exists before the build, so that installing the
// workspace can link the command; it says what to do when the build has not run yet.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write(
    'kfx-testenv is not built yet: run `pnpm --filter @kfx/testenv build` first\n',
  );
  process.exit(1);
}
await import(cli.href);
