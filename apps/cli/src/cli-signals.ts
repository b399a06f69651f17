// Ctrl-C and SIGTERM during a command that must clean up: the first signal aborts the work (the
// command then deletes what it created and exits 130/143); a second Ctrl-C exits at once, saying
// that clean-up did not finish and, when the command can tell, what it leaves behind. A repeated
// SIGTERM does not: orchestrators send it more than once (Argo's controller signals a stopped
// step's containers on every pass over the workflow) and insist with SIGKILL once the grace
// period is over, never with a second SIGTERM.
import { EXIT } from './cli-exit.js';

export interface SignalScope {
  signal: AbortSignal;
  /** The signal received, if any. */
  received(): NodeJS.Signals | undefined;
  /** The exit code for the received signal (130 for SIGINT, 143 for SIGTERM). */
  exitCode(): number;
  dispose(): void;
}

export interface SignalOptions {
  /** What the command leaves behind when it exits at once (lines for stderr), if anything. */
  leftBehind?: (() => string | undefined) | undefined;
}

export function abortOnSignals(
  stderr: (text: string) => void,
  options: SignalOptions = {},
): SignalScope {
  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  let repeated = false;
  const code = (signal: NodeJS.Signals | undefined) =>
    signal === 'SIGTERM' ? EXIT.terminated : EXIT.interrupted;
  const handler = (signal: NodeJS.Signals) => {
    if (received && signal === 'SIGTERM') {
      if (!repeated) stderr(`\nkfx: SIGTERM again: still cleaning up (Ctrl-C exits at once)\n`);
      repeated = true;
      return;
    }
    if (received) {
      const again = signal === received ? ' again' : '';
      stderr(`\nkfx: ${signal}${again}: exiting without finishing clean-up\n`);
      const left = options.leftBehind?.();
      if (left) stderr(left);
      process.exit(code(signal));
    }
    received = signal;
    stderr(`\nkfx: ${signal}: stopping and cleaning up (Ctrl-C again to exit at once)\n`);
    controller.abort(new Error(signal));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    signal: controller.signal,
    received: () => received,
    exitCode: () => code(received),
    dispose() {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
