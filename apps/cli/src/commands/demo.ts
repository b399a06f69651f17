// `kfx demo`: the command line of the local demo, and `kfx demo load-image` for the cluster it
// keeps. The demo itself is @kfx/demo, a package of the kfx repository that starts an embedded
// control plane (@kfx/testenv): the CLI bundle leaves it out and loads it by name when the command
// runs, so an installed kfx (npm, npx, the image) shows this help and says in one line where the
// demo runs.
import type * as DemoModule from '@kfx/demo';
import { messageOf } from '@kfx/kube-runtime/exit';
import { Command } from 'commander';
import { CliError } from '../cli-exit.js';
import { abortOnSignals } from '../cli-signals.js';
import { globalOptions } from '../cli-options.js';

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

function loadImageCommand(): Command {
  return new Command('load-image')
    .description(
      "Load local images into the node of the cluster `kfx demo --keep` left running (KUBECONFIG or --kubeconfig), as `kind load` does: podman's localhost/<name> also as <name>.",
    )
    .argument('<image...>', 'an image archive (OCI layout or docker-archive), or a podman image')
    .addHelpText(
      'after',
      `
Examples:
  $ npm run images && kfx demo load-image kfx/webhook kfx/controller
  $ kfx demo load-image ./my-image.tar --kubeconfig <the kubeconfig kfx demo --keep printed>`,
    )
    .action(async (images: string[], _options: unknown, command: Command) => {
      const demo = await loadDemo();
      try {
        await demo.loadImages({
          kubeconfig: globalOptions(command).kubeconfig,
          images,
          log: (line) => {
            process.stdout.write(`${line}\n`);
          },
        });
      } catch (error) {
        throw new CliError(`kfx demo load-image: ${messageOf(error)}`);
      }
    });
}

export function demoCommand(): Command {
  return new Command('demo')
    .option(
      '--keep',
      'leave the cluster running for your own installs and print the line that puts kfx, kubectl and helm on the PATH',
    )
    .addCommand(loadImageCommand())
    .addHelpText(
      'after',
      `
Needs the control-plane binaries (built once from the Go module proxy by \`npm start\`/\`npm test\`,
or named by KUBEBUILDER_ASSETS). Nothing touches your own clusters: the control plane listens on
127.0.0.1, or with a real node on the network it makes for the node (10.233.N.0/24), and is
removed at the end.

Examples:
  $ kfx demo
  $ kfx demo --keep    then, in another shell, the printed export line and: kubectl get profiles`,
    )
    .action(async (options: { keep?: boolean }) => {
      const demo = await loadDemo();
      const signals = abortOnSignals((text) => process.stderr.write(text));
      try {
        await demo.runDemo({ keep: options.keep, signal: signals.signal });
      } catch (error) {
        // Stopped by Ctrl-C or SIGTERM: the demo removed what it made (130, or 143).
        if (signals.received() === undefined) throw error;
        if (!options.keep)
          process.stderr.write('kfx demo: stopped; everything it made is removed\n');
        process.exitCode = signals.exitCode();
      } finally {
        signals.dispose();
      }
    });
}
