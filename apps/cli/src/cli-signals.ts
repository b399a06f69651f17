// Ctrl-C and SIGTERM during a command that must clean up: the first signal aborts the work (the
// command then deletes what it created and exits 130/143); a second one exits at once, saying
// that clean-up did not finish and, when the command can tell, what it leaves behind.
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
  const code = (signal: NodeJS.Signals | undefined) =>
    signal === 'SIGTERM' ? EXIT.terminated : EXIT.interrupted;
  const handler = (signal: NodeJS.Signals) => {
    if (received) {
      stderr(`\nkfx: ${signal} again: exiting without finishing clean-up\n`);
      const left = options.leftBehind?.();
      if (left) stderr(left);
      process.exit(code(signal));
    }
    received = signal;
    stderr(`\nkfx: ${signal}: stopping and cleaning up (${signal} again to exit at once)\n`);
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
