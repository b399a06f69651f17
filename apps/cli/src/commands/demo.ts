// `kfx demo`: the command line of the local demo. The demo itself is @kfx/demo, a package of the
// kfx repository that starts an embedded control plane (@kfx/testenv): the CLI bundle leaves it
// out and loads it by name when the command runs, so an installed kfx (npm, npx, the image) shows
// this help and says in one line where the demo runs.
import type * as DemoModule from '@kfx/demo';
import { messageOf } from '@kfx/kube-runtime/exit';
import { Command } from 'commander';
import { CliError } from '../cli-exit.js';

/** What an installed kfx says to `kfx demo`. */
const DEMO_NEEDS_CLONE =
  'kfx demo runs from a clone of the kfx repository, which brings the local control plane it starts: git clone https://github.com/kfx-dev/kfx && cd kfx && npm start';

/** True when `error` says that @kfx/demo itself is not installed (not one of its imports). */
function demoMissing(error: unknown): boolean {
  const { code, message } = error as NodeJS.ErrnoException;
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    /['"]@kfx\/demo['"]/.test(message)
  );
}

async function loadDemo(): Promise<typeof DemoModule> {
  try {
    return await import('@kfx/demo');
  } catch (error) {
    if (demoMissing(error)) throw new CliError(DEMO_NEEDS_CLONE);
    throw new CliError(`kfx demo could not load @kfx/demo: ${messageOf(error)}`);
  }
}

export function demoCommand(): Command {
  return new Command('demo')
    .option(
      '--keep',
      'leave everything running and print the kubeconfig path to explore with kubectl',
    )
    .addHelpText(
      'after',
      `
Needs the control-plane binaries (built once from the Go module proxy by \`npm start\`/\`npm test\`,
or named by KUBEBUILDER_ASSETS). Nothing touches your own clusters: the control plane listens on
127.0.0.1 only and is removed at the end.

Examples:
  $ kfx demo
  $ kfx demo --keep    then, in another shell: KUBECONFIG=<printed path> kubectl get profiles`,
    )
    .action(async (options: DemoModule.DemoOptions) => {
      await (await loadDemo()).runDemo(options);
    });
}
