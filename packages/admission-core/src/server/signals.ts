// Graceful shutdown on SIGTERM (what the kubelet sends): stop accepting, drain, exit. A second
// signal means "now": exit at once.
import type { Logger } from 'pino';

export interface CloseOnSignalsOptions {
  /** Default SIGTERM and SIGINT. */
  signals?: readonly NodeJS.Signals[];
  /** Called with 0 after a clean close, 1 after a failed one or a second signal. Default process.exit. */
  exit?: (code: number) => void;
  logger?: Logger;
}

/** Closes `server` on the first signal and then exits; returns a function that stops listening. */
export function closeOnSignals(
  server: { close(): Promise<void> },
  options: CloseOnSignalsOptions = {},
): () => void {
  const { signals = ['SIGTERM', 'SIGINT'], exit = (code: number) => process.exit(code) } = options;
  const { logger } = options;
  let closing = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (closing) {
      logger?.warn({ signal }, 'second signal: exiting without waiting for the drain');
      exit(1);
      return;
    }
    closing = true;
    logger?.info({ signal }, 'shutting down: draining in-flight requests');
    server.close().then(
      () => {
        exit(0);
      },
      (error: unknown) => {
        logger?.error({ err: error }, 'graceful shutdown failed');
        exit(1);
      },
    );
  };
  for (const signal of signals) process.on(signal, onSignal);
  return () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
}
