// One JSON line per exchange, written when it ends (a watch logs when it closes), with what an
// operator needs to follow a request: who (address, user agent), what, outcome, size and time.
import type { Logger } from 'pino';

export interface AccessRecord {
  method: string;
  path: string;
  /** HTTP status sent to the caller; 0 when the exchange ended before any. */
  status: number;
  /** Response bytes sent to the caller (after an upgrade: bytes to the caller). */
  bytes: number;
  /** Bytes received from the caller (request body, or after an upgrade). */
  bytesIn: number;
  durationMs: number;
  userAgent: string | undefined;
  remoteAddress: string | undefined;
  kind: string;
  /** Why the exchange ended early: the caller left, the upstream failed, idle timeout. */
  error?: string | undefined;
}

const MAX_PATH_CHARS = 2048;

export function logAccess(logger: Logger, record: AccessRecord): void {
  const path =
    record.path.length > MAX_PATH_CHARS ? `${record.path.slice(0, MAX_PATH_CHARS)}…` : record.path;
  const line = { ...record, path, durationMs: Math.round(record.durationMs * 100) / 100 };
  if (record.error !== undefined || record.status >= 500 || record.status === 0) {
    logger.warn(line, 'access');
  } else {
    logger.info(line, 'access');
  }
}
