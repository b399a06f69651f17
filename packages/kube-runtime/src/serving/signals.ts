// The process's signals, in one place: the first stop signal (SIGTERM from the kubelet, SIGINT
// from a terminal) asks for a graceful stop, a second one means "now", and SIGHUP asks the
// components to re-read their files. As controller-runtime's `signals.SetupSignalHandler`.

export interface SignalHandlers {
  /** The first of `stopSignals`. */
  stop(signal: NodeJS.Signals): void;
  /** Any later one of `stopSignals`. */
  force(signal: NodeJS.Signals): void;
  /** SIGHUP, when given. */
  reload?: ((signal: NodeJS.Signals) => void) | undefined;
}

/** Listens until the returned function is called. */
export function handleSignals(
  stopSignals: readonly NodeJS.Signals[],
  handlers: SignalHandlers,
): () => void {
  let stopping = false;
  const onStop = (signal: NodeJS.Signals) => {
    if (stopping) {
      handlers.force(signal);
      return;
    }
    stopping = true;
    handlers.stop(signal);
  };
  const onReload = (signal: NodeJS.Signals) => handlers.reload?.(signal);
  for (const signal of stopSignals) process.on(signal, onStop);
  if (handlers.reload) process.on('SIGHUP', onReload);
  return () => {
    for (const signal of stopSignals) process.off(signal, onStop);
    process.off('SIGHUP', onReload);
  };
}
