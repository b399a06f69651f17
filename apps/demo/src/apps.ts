// The demo runs the real kfx-webhook and kfx-controller binaries (the apps' builds, beside this
// package in the repository) as child processes against the embedded control plane, with their logs
// in the control plane's folder.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ManagedProcess } from '@kfx/testenv';
import type { Testenv } from './testenv.js';

/** apps/<app>/dist/main.js: the demo runs from a checkout, where `npm start` builds them. */
function entryPoint(app: string): string {
  const main = fileURLToPath(new URL(`../../${app}/dist/main.js`, import.meta.url));
  if (!existsSync(main)) {
    throw new Error(
      `${main} is missing: kfx demo runs from the kfx repository after \`npm start\` (or turbo run build)`,
    );
  }
  return main;
}

export function startApp(
  testenv: Testenv,
  name: string,
  app: string,
  args: readonly string[],
  dir: string,
): ManagedProcess {
  return testenv.startProcess({
    name,
    command: process.execPath,
    args: [entryPoint(app), ...args],
    logFile: join(dir, `${name}.log`),
  });
}
