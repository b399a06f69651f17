// The command line every kfx process shares: --config, --kubeconfig, --context, --help and
// --version, plus the process's own flags; a refusal is a UsageError (exit 2) with the usage.
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { UsageError } from '../exit-codes.js';
import { messageOf } from '../message-of.js';

const PROCESS_FLAGS = {
  config: { type: 'string' },
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
  version: { type: 'boolean', default: false },
} as const satisfies ParseArgsOptionsConfig;

/**
 * Parses `argv` (without the node and script names) strictly: no positionals, `--no-<flag>` for
 * booleans; an unknown or malformed flag throws a UsageError naming it, followed by `usage`.
 */
export function parseProcessFlags<const O extends ParseArgsOptionsConfig>(
  argv: readonly string[],
  usage: string,
  own: O,
) {
  try {
    return parseArgs({
      args: [...argv],
      options: { ...PROCESS_FLAGS, ...own },
      strict: true,
      allowNegative: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new UsageError(`${messageOf(error)}\n\n${usage}`);
  }
}
