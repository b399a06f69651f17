// Exit codes of every kfx command, in one place, so that `--help` documents what the code does.
// 1 is kept for "the thing you ran found a problem" (a failing test suite); anything the CLI
// itself could not do — bad flags included — is 2, so CI can tell the two apart.
// The codes are kfx's one mapping (kube-runtime's exit-codes, shared with kfx-webhook and
// kfx-controller): a bad configuration is 2 there too.
import { EXIT as KFX_EXIT, exitCodeOf as kfxExitCode, messageOf } from '@kfx/kube-runtime/exit';
import { CommanderError, type Command } from 'commander';

export const EXIT = {
  ok: KFX_EXIT.ok,
  testsFailed: KFX_EXIT.failure,
  error: KFX_EXIT.badConfig,
  interrupted: KFX_EXIT.interrupted,
  terminated: KFX_EXIT.terminated,
} as const;

export const EXIT_CODES_HELP = `Exit codes:
  0    success
  1    what the command ran found a problem: the test suite failed (its container exited
       non-zero), or expose-api check found a fault
  2    infrastructure failure or bad input: usage errors, unreadable files, API errors,
       timeouts, a pod that cannot start
  130  interrupted by Ctrl-C (SIGINT), after cleaning up; 143 for SIGTERM`;

/** An error whose message is the whole story: printed as `kfx: <message>`, exit code 2. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.error,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/**
 * Makes commander throw instead of exiting, on the whole tree (subcommands added with
 * `addCommand` inherit no settings), so that `exitCodeOf` decides every exit code.
 */
export function throwInsteadOfExiting(command: Command): void {
  command.exitOverride();
  for (const sub of command.commands) throwInsteadOfExiting(sub);
}

/** The exit code for something a command threw; prints it unless commander already did. */
export function exitCodeOf(error: unknown, stderr: (text: string) => void): number {
  if (error instanceof CommanderError) {
    // Help and --version end with 0; every usage error with 2 (commander printed it).
    return error.exitCode === 0 ? EXIT.ok : EXIT.error;
  }
  const message = messageOf(error);
  stderr(`kfx: ${message}\n`);
  // A CliError carries its code; a bad configuration is 2, as is anything else the CLI could not do.
  return kfxExitCode(error, EXIT.error);
}
