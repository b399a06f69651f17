// kfx-controller: reconciles per-tenant policy for every Kubeflow Profile. Exit codes (the same
// for every kfx app, see kube-runtime's exit-codes): 0 after a graceful stop (SIGTERM/SIGINT),
// 2 for a bad command line or config (nothing was started), 1 when the controller failed at run
// time.
import { EXIT, runEntry } from '@kfx/kube-runtime/serving';
import { parseCommandLine, USAGE } from './args.js';
import { loadConfig } from './config.js';
import { startController } from './run.js';
import { VERSION } from './version.js';

async function main(): Promise<number | undefined> {
  const args = parseCommandLine(process.argv.slice(2));
  if (args.help) {
    process.stdout.write(USAGE);
    return EXIT.ok;
  }
  if (args.version) {
    process.stdout.write(`kfx-controller ${VERSION}\n`);
    return EXIT.ok;
  }
  const config = loadConfig(args.config);
  const running = await startController({
    config,
    kubeconfig: args.kubeconfig,
    context: args.context,
    metricsPort: args.metricsPort,
    namespace: args.namespace,
    leaderElect: args.leaderElect,
  });
  const state = { stopping: false };
  const stop = (signal: NodeJS.Signals) => {
    if (state.stopping) process.exit(EXIT.failure);
    state.stopping = true;
    process.stderr.write(`kfx-controller: ${signal}, stopping (again to force)\n`);
    void running.stop().then(() => process.exit(EXIT.ok));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  try {
    await running.done;
  } catch (error) {
    if (!state.stopping) throw error;
  }
  if (!state.stopping) throw new Error('the controller stopped unexpectedly');
  return undefined;
}

await runEntry('kfx-controller', main);
