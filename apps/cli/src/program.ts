// The `kfx` command tree. Each subcommand lives in its own module; this file only wires them.
import { Command } from 'commander';
import { demoCommand } from './demo.js';

export function buildProgram(): Command {
  const program = new Command('kfx')
    .description('Make multi-tenant Kubeflow work in restricted environments.')
    .showHelpAfterError()
    .addHelpText(
      'after',
      `
Examples:
  $ kfx demo                 run the local demo on an embedded control plane
  $ kfx demo --help          what the demo shows`,
    );
  program.addCommand(demoCommand());
  return program;
}
