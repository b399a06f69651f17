// The logger every part falls back to when the caller passes none: pino JSON on stdout at `warn`,
// so failures surface but a library stays quiet about routine work. Apps pass their own logger.
import { pino, type Logger } from 'pino';

let fallback: Logger | undefined;

export function defaultLogger(): Logger {
  fallback ??= pino({ name: 'kfx-kube-runtime', level: 'warn' });
  return fallback;
}

export type { Logger };
