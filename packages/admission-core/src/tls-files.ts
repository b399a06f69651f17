// Serving certificate and key from files, reloaded when they change on disk. cert-manager (through
// a Secret volume) swaps a `..data` symlink inside the folder, and other tools rename files into
// place, so the folders are watched rather than the files. Some rotations reach no folder event
// (a symlink to a file elsewhere, a bind mount, a network file system): a poll of the files' stat
// (cheap: no read, no parse) notices those within seconds, and a full re-read now and then
// catches even a same-size rewrite within one timestamp tick.
import { watch, type FSWatcher } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
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
  /**
   * Compare the files' identity (device, inode), size and times this often, and re-read them
   * when those changed. Default 2000.
   */
  pollIntervalMs?: number;
}

/** The files are re-read at least this often, changed stat or not. */
const FULL_CHECK_MS = 60_000;

/** What stat says about one file (through symlinks), or why it cannot say. */
async function stampOf(path: string): Promise<string> {
  try {
    const { dev, ino, size, mtimeNs, ctimeNs } = await stat(path, { bigint: true });
    return `${dev}:${ino}:${size}:${mtimeNs}:${ctimeNs}`;
  } catch (error) {
    return `error:${String((error as NodeJS.ErrnoException).code)}`;
  }
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
  const { debounceMs = 200, pollIntervalMs = 2000 } = options;
  let last = current;
  let pending: NodeJS.Timeout | undefined;
  let lastError = '';
  const checkOnce = async () => {
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
  // One check at a time (a change event, the poll and reloadTls() may coincide), so a new pair
  // is installed and counted once; a check asked for during one runs once more after it.
  let running: Promise<void> | undefined;
  let wanted = 0;
  const runChecks = async () => {
    for (let done = -1; done !== wanted;) {
      done = wanted;
      await checkOnce();
    }
    running = undefined;
  };
  const check = (): Promise<void> => {
    wanted += 1;
    running ??= runChecks();
    return running;
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
  // Undefined at first, so the first poll re-reads: a rotation between the initial read and the
  // first stat would otherwise look like no change.
  let stamp: string | undefined;
  let polling = false;
  let lastFull = Date.now();
  const poll = async () => {
    if (polling) return;
    polling = true;
    try {
      const next = `${await stampOf(files.certFile)} ${await stampOf(files.keyFile)}`;
      const due = Date.now() - lastFull >= FULL_CHECK_MS;
      if (next !== stamp || due) {
        stamp = next;
        lastFull = Date.now();
        await check();
      }
    } finally {
      polling = false;
    }
  };
  const timer = setInterval(() => void poll(), pollIntervalMs).unref();
  return {
    check,
    close() {
      clearTimeout(pending);
      clearInterval(timer);
      for (const watcher of watchers) watcher.close();
    },
  };
}
