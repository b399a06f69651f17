// The `kfx expose-api` subcommands in the order the CLI lists them.
import { checkCommand } from './check.js';
import { envCommand } from './env.js';
import { kubeconfigCommand } from './kubeconfig.js';
import { manifestsCommand } from './manifests.js';
import type { CommandSpec } from './option-spec.js';
import { serveCommand } from './serve.js';

export const EXPOSE_API_COMMANDS: readonly CommandSpec[] = [
  serveCommand,
  manifestsCommand,
  kubeconfigCommand,
  envCommand,
  checkCommand,
];
