// Serving certificate and key from files, reloaded when they change on disk. cert-manager (through
// a Secret volume) swaps a `..data` symlink inside the folder, and other tools rename files into
// place, so the folders are watched rather than the files, with a slow poll as a safety net.
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createSecureContext } from 'node:tls';

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

export interface TlsPair {
  cert: string;
  key: string;
}

/** Throws an error naming the problem when the key does not belong to the certificate. */
export function checkTlsPair(pair: TlsPair, source: string): void {
  try {
    createSecureContext(pair);
  } catch (error) {
    throw new Error(`TLS certificate and key from ${source}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

export async function readTlsFiles(files: TlsFiles): Promise<TlsPair> {
  const read = async (path: string, what: string) => {
    try {
      return await readFile(path, 'utf8');
    } catch (error) {
      throw new Error(`cannot read the TLS ${what} ${path}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  };
  const [cert, key] = await Promise.all([
    read(files.certFile, 'certificate (tls.certFile)'),
    read(files.keyFile, 'key (tls.keyFile)'),
  ]);
  const pair = { cert, key };
  checkTlsPair(pair, `${files.certFile} and ${files.keyFile}`);
  return pair;
}

export interface TlsWatchOptions {
  /** Called with a new, checked pair. */
  onChange(pair: TlsPair): void;
  /** Called when the files changed but do not form a valid pair (yet): the old pair stays. */
  onError(error: Error): void;
  /** Wait this long after a change before reading, so both files are written. Default 200. */
  debounceMs?: number;
  /** Re-read this often even without a change event. Default 60000. */
  pollIntervalMs?: number;
}

export interface TlsWatcher {
  /** Re-reads now; resolves once done (used by the poll and by tests). */
  check(): Promise<void>;
  close(): void;
}

export function watchTlsFiles(
  files: TlsFiles,
  current: TlsPair,
  options: TlsWatchOptions,
): TlsWatcher {
  const { debounceMs = 200, pollIntervalMs = 60_000 } = options;
  let last = current;
  let pending: NodeJS.Timeout | undefined;
  let lastError = '';
  const check = async () => {
    try {
      const pair = await readTlsFiles(files);
      lastError = '';
      if (pair.cert === last.cert && pair.key === last.key) return;
      last = pair;
      options.onChange(pair);
    } catch (error) {
      // A rotation writes the two files one after the other: report each distinct problem once.
      const message = (error as Error).message;
      if (message !== lastError) options.onError(error as Error);
      lastError = message;
    }
  };
  const schedule = () => {
    clearTimeout(pending);
    pending = setTimeout(() => void check(), debounceMs).unref();
  };
  const folders = [...new Set([dirname(files.certFile), dirname(files.keyFile)])];
  const watchers: FSWatcher[] = [];
  for (const folder of folders) {
    try {
      watchers.push(watch(folder, { persistent: false }, schedule).on('error', schedule));
    } catch (error) {
      options.onError(
        new Error(`cannot watch ${folder}; polling only: ${(error as Error).message}`),
      );
    }
  }
  const poll = setInterval(() => void check(), pollIntervalMs).unref();
  return {
    check,
    close() {
      clearTimeout(pending);
      clearInterval(poll);
      for (const watcher of watchers) watcher.close();
    },
  };
}
