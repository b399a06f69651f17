// `kfx uat`: user-acceptance tests in the cluster.
import { Command } from 'commander';
import { uatCleanCommand } from './clean.js';
import { uatManifestsCommand } from './manifests.js';
import { uatRbacCommand } from './rbac.js';
import { uatRunCommand } from './run.js';

export function uatCommand(): Command {
  return new Command('uat')
    .addCommand(uatRunCommand())
    .addCommand(uatRbacCommand())
    .addCommand(uatCleanCommand())
    .addCommand(uatManifestsCommand())
    .addHelpText(
      'after',
      `
Examples:
  $ kfx uat run --image registry.corp/kubeflow-uats:1.9 --command "pytest tests/" --artifacts out/
  $ kfx uat rbac --service-account ci:uat-runner | kubectl apply -f -
  $ kfx uat clean --run-id k3x9a
  $ kfx uat manifests --format argo | kubectl apply -f -`,
    );
}
