// `kfx demo`: the local demonstration that `npm start` runs, on an embedded control plane.
import { CoreV1Api } from '@kubernetes/client-node';
import { startControlPlane } from '@kfx/testenv';
import { Command } from 'commander';

export const DEMO_STEPS = [
  'start a local control plane (etcd, kube-apiserver, controller-manager, scheduler, kwok)',
  'start kfx-webhook and kfx-controller against it',
  'create a Profile with quota labels and show the per-profile objects',
  'create a Pod and show the injected proxy variables',
  'create a ReadWriteMany claim and show the rewritten StorageClass',
  'run a UAT Job and show its result',
] as const;

const since = (start: number) => `${((performance.now() - start) / 1000).toFixed(1)}s`;

async function runDemo(options: { keep?: boolean }): Promise<void> {
  const start = performance.now();
  console.log('kfx demo: what it shows, step by step');
  DEMO_STEPS.forEach((s, i) => {
    console.log(`  ${i + 1}. ${s}`);
  });
  console.log('');
  const env = await startControlPlane({
    components: ['controller-manager', 'scheduler', 'kwok'],
    progress: (line) => {
      console.log(`  [${since(start)}] ${line}`);
    },
  });
  try {
    console.log(`✓ control plane ready at ${env.server} in ${since(start)}`);
    console.log(`  kubeconfig: ${env.kubeconfigPath}\n`);
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const namespaces = await core.listNamespace();
    console.log(`  ${'NAME'.padEnd(20)} STATUS`);
    for (const ns of namespaces.items) {
      console.log(`  ${(ns.metadata?.name ?? '').padEnd(20)} ${ns.status?.phase ?? ''}`);
    }
    if (options.keep) {
      console.log(
        `\nThe control plane keeps running. Explore it with:\n  export KUBECONFIG=${env.kubeconfigPath}\nCtrl-C stops it.`,
      );
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
    }
  } finally {
    await env.stop();
  }
}

export function demoCommand(): Command {
  return new Command('demo')
    .description('Run the kfx demo on an embedded local control plane.')
    .option('--keep', 'leave the control plane running and print its kubeconfig path')
    .action(runDemo);
}
