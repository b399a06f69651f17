// kfx-controller: reconciles per-tenant policy for every Kubeflow Profile. Exit codes: 0 after
// a graceful stop (SIGTERM/SIGINT), 2 for a bad command line or config (nothing was started),
// 1 when the controller failed at run time.
import { ConfigError } from '@kfx/kube-runtime';
import { parseCommandLine, USAGE, UsageError } from './args.js';
import { loadConfig } from './config.js';
import { startController } from './run.js';
import { VERSION } from './version.js';

function fail(code: number, message: string): never {
  process.stderr.write(`kfx-controller: ${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  let args;
  let config;
  try {
    args = parseCommandLine(process.argv.slice(2));
    if (args.help) {
      process.stdout.write(USAGE);
      return;
    }
    if (args.version) {
      process.stdout.write(`kfx-controller ${VERSION}\n`);
      return;
    }
    config = loadConfig(args.config);
  } catch (error) {
    if (error instanceof UsageError) fail(2, `${error.message}\n\n${USAGE}`);
    if (error instanceof ConfigError) {
      fail(2, `invalid configuration:\n${error.problems.map((p) => `  ${p}`).join('\n')}`);
    }
    throw error;
  }
  let running;
  try {
    running = await startController({
      config,
      kubeconfig: args.kubeconfig,
      context: args.context,
      metricsPort: args.metricsPort,
      namespace: args.namespace,
      leaderElect: args.leaderElect,
    });
  } catch (error) {
    fail(1, (error as Error).message);
  }
  const state = { stopping: false };
  const stop = (signal: NodeJS.Signals) => {
    if (state.stopping) process.exit(1);
    state.stopping = true;
    process.stderr.write(`kfx-controller: ${signal}, stopping (again to force)\n`);
    void running.stop().then(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  try {
    await running.done;
  } catch (error) {
    if (!state.stopping) fail(1, (error as Error).message);
  }
  if (!state.stopping) fail(1, 'the controller stopped unexpectedly');
}

await main();
