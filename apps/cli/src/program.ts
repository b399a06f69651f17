// The `kfx` command tree. Each subcommand lives in its own module; this file only wires them:
// adding a command group is one `addCommand` line.
import { Command } from 'commander';
import { completionCommand } from './cli-completion.js';
import { EXIT_CODES_HELP, throwInsteadOfExiting } from './cli-exit.js';
import { addGlobalOptions } from './cli-kube.js';
import { exposeApiCommand } from './commands/expose-api.js';
import { previewCommand } from './commands/preview.js';
import { uatCommand } from './commands/uat.js';
import { webhookCommand } from './commands/webhook-manifests.js';
import { demoCommand } from './demo/demo.js';
import { VERSION } from './version.js';

export function buildProgram(): Command {
  const program = addGlobalOptions(new Command('kfx'))
    .description('Make multi-tenant Kubeflow work in restricted environments.')
    .version(`kfx ${VERSION}`, '--version', 'print the version')
    .showHelpAfterError('(add --help for usage)')
    .addHelpText(
      'after',
      `
Examples:
  $ kfx uat run --image registry.corp/kubeflow-uats:1.9 --command "pytest tests/" --artifacts out/
  $ kfx uat rbac --service-account ci:uat-runner | kubectl apply -f -
  $ kfx expose-api manifests --external-address 203.0.113.10 | kubectl apply -f -
  $ kfx webhook manifests -n kfx-system --cert-manager kfx-system/kfx-webhook-serving
  $ kfx preview pod.yaml --http-proxy http://proxy.corp:3128
  $ kfx demo                 run the local demo on an embedded control plane
  $ source <(kfx completion bash)

Global options (--kubeconfig, --context, -n, --log-level) go before or after the command.

${EXIT_CODES_HELP}`,
    );
  program.addCommand(uatCommand());
  program.addCommand(exposeApiCommand());
  program.addCommand(webhookCommand());
  program.addCommand(previewCommand());
  program.addCommand(demoCommand());
  program.addCommand(completionCommand());
  throwInsteadOfExiting(program);
  return program;
}
