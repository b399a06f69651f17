// kfx-controller: reconciles per-tenant policy for every Kubeflow Profile. The command line
// (args.ts) and the file (config.ts) are checked before anything touches a cluster; run.ts
// composes the runtime, which serves until SIGTERM. Exit codes (kube-runtime's, the same for
// every kfx process): 0 after a graceful stop (SIGTERM/SIGINT; the Lease is released), 1 when it
// cannot start, fails at run time or a second signal forced it, 2 for a bad command line or
// config (nothing was started).
import { EXIT, runEntry } from '@kfx/kube-runtime/serving';
import { parseCommandLine, USAGE } from './args.js';
import { loadConfig } from './config.js';
import { composeController } from './run.js';
import { VERSION } from './version.js';

await runEntry('kfx-controller', async () => {
  const args = parseCommandLine(process.argv.slice(2));
  if (args.help) {
    process.stdout.write(USAGE);
    return EXIT.ok;
  }
  if (args.version) {
    process.stdout.write(`kfx-controller ${VERSION}\n`);
    return EXIT.ok;
  }
  const { runtime } = composeController({
    config: loadConfig(args.config),
    kubeconfig: args.kubeconfig,
    context: args.context,
    metricsPort: args.metricsPort,
    namespace: args.namespace,
    leaderElect: args.leaderElect,
  });
  return runtime.run();
});
