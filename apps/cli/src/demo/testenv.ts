// The demo's embedded control plane comes from @kfx/testenv, a development tool that builds and
// runs kube-apiserver and friends. It is loaded only when `kfx demo` runs, so the kfx CLI image
// and the published @kfx/cli (which have no testenv) start and serve every other command
// without it.
import type * as TestenvModule from '@kfx/testenv';
import { messageOf } from '@kfx/kube-runtime/serving';
import { CliError } from '../cli-exit.js';

export type Testenv = typeof TestenvModule;

/** What an installed kfx (npm, npx, the image) says to `kfx demo`. */
const DEMO_NEEDS_CLONE =
  'kfx demo runs from a clone of the kfx repository, which brings the local control plane it starts: git clone https://github.com/kfx-dev/kfx && cd kfx && npm start';

/** True when `error` says that @kfx/testenv itself is not installed (not one of its imports). */
function testenvMissing(error: unknown): boolean {
  const { code, message } = error as NodeJS.ErrnoException;
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    /['"]@kfx\/testenv['"]/.test(message)
  );
}

export async function loadTestenv(): Promise<Testenv> {
  try {
    return await import('@kfx/testenv');
  } catch (error) {
    if (testenvMissing(error)) throw new CliError(DEMO_NEEDS_CLONE);
    throw new CliError(
      `kfx demo could not load @kfx/testenv (the embedded control plane): ${messageOf(error)}`,
    );
  }
}
