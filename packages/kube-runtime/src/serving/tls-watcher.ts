// Keeps a serving certificate and key (and a CA bundle, when given) current without a restart,
// as controller-runtime's certwatcher does. cert-manager (through a Secret volume) swaps a
// `..data` symlink inside the folder and other tools rename files into place, so the folders are
// watched rather than the files. Some rotations reach no folder event (a symlink to a file
// elsewhere, a bind mount, a network file system, no inotify): a poll of the files' stat (cheap:
// no read, no parse) notices those within seconds, and a full re-read now and then catches even a
// same-size rewrite within one timestamp tick. A half-written or mismatched pair never replaces a
// good one: the previous one stays and the next change is tried again.
import { createHash } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  checkCaBundle,
  checkTlsPair,
  readTlsText,
  type TlsFiles,
  type TlsMaterial,
} from './tls-pair.js';

export interface TlsWatchOptions {
  /** Called with the new material (a checked pair and CA); `previous` tells what changed. */
  onChange(next: TlsMaterial, previous: TlsMaterial): void;
  /** Called once per distinct problem (unreadable, mismatched…): the current material stays. */
  onError(error: Error): void;
  /** Wait this long after a folder event before reading, so both files are written. Default 200. */
  debounceMs?: number | undefined;
  /**
   * Compare the files' identity (device, inode), size and times this often, and re-read them
   * when those changed. Default 2000.
   */
  pollIntervalMs?: number | undefined;
  /** Re-read the files at least this often, changed stat or not. Default 60000. */
  rereadIntervalMs?: number | undefined;
}

export interface TlsWatcher {
  /** What is in use now: the initial material, or the last good one read. */
  current(): TlsMaterial;
  /** Re-reads now; resolves once done. Never rejects (problems go to `onError`). */
  check(): Promise<void>;
  close(): void;
}

/** What stat says about one file (through symlinks), or why it cannot say. */
async function stampOf(path: string): Promise<string> {
  try {
    const { dev, ino, size, mtimeNs, ctimeNs } = await stat(path, { bigint: true });
    return `${dev}:${ino}:${size}:${mtimeNs}:${ctimeNs}`;
  } catch (error) {
    return `error:${String((error as NodeJS.ErrnoException).code)}`;
  }
}

const digest = (...parts: (string | undefined)[]) =>
  createHash('sha256')
    .update(parts.map((p) => p ?? '').join('\0'))
    .digest('hex');

const asError = (error: unknown) => (error instanceof Error ? error : new Error(String(error)));

/**
 * Watches `files`, starting from `initial` (what the caller loaded with `loadTlsFiles`), and calls
 * `onChange` with each new, checked material. The serving pair and the CA are judged apart: a
 * broken CA file does not hold back a good new pair, nor the other way round.
 */
export function watchTlsFiles(
  files: TlsFiles,
  initial: TlsMaterial,
  options: TlsWatchOptions,
): TlsWatcher {
  const { debounceMs = 200, pollIntervalMs = 2000, rereadIntervalMs = 60_000 } = options;
  let current = initial;
  /** The content last found broken, so each broken state is reported once, not on every poll. */
  let reported = '';

  const checkOnce = async () => {
    let text;
    try {
      text = await readTlsText(files);
    } catch (error) {
      const message = asError(error).message;
      if (message !== reported) options.onError(asError(error));
      reported = message;
      return;
    }
    const pairChanged = text.cert !== current.cert || text.key !== current.key;
    const caChanged = text.ca !== current.ca;
    if (!pairChanged && !caChanged) {
      reported = '';
      return;
    }
    let next = current;
    const problems: Error[] = [];
    if (pairChanged) {
      try {
        const certificate = checkTlsPair(text, `${files.certFile} and ${files.keyFile}`);
        next = { ...next, cert: text.cert, key: text.key, certificate };
      } catch (error) {
        problems.push(asError(error));
      }
    }
    if (caChanged && text.ca !== undefined) {
      try {
        checkCaBundle(text.ca, files.caFile ?? '');
        next = { ...next, ca: text.ca };
      } catch (error) {
        problems.push(asError(error));
      }
    }
    const state = digest(text.cert, text.key, text.ca);
    if (problems.length === 0) reported = '';
    else if (state !== reported) {
      reported = state;
      for (const problem of problems) options.onError(problem);
    }
    if (next !== current) {
      const previous = current;
      current = next;
      options.onChange(next, previous);
    }
  };

  // One check at a time (a folder event, the poll and check() may coincide), so a new pair is
  // installed and counted once; a check asked for during one runs once more after it.
  let running: Promise<void> | undefined;
  let wanted = 0;
  const runChecks = async () => {
    for (let done = -1; done !== wanted;) {
      done = wanted;
      await checkOnce().catch((error: unknown) => {
        options.onError(asError(error));
      });
    }
    running = undefined;
  };
  const check = (): Promise<void> => {
    wanted += 1;
    running ??= runChecks();
    return running;
  };

  let pending: NodeJS.Timeout | undefined;
  const schedule = () => {
    clearTimeout(pending);
    pending = setTimeout(() => void check(), debounceMs).unref();
  };
  const paths = [
    files.certFile,
    files.keyFile,
    ...(files.caFile === undefined ? [] : [files.caFile]),
  ];
  const watchers: FSWatcher[] = [];
  for (const folder of new Set(paths.map((path) => dirname(path)))) {
    try {
      watchers.push(watch(folder, { persistent: false }, schedule).on('error', schedule));
    } catch (error) {
      options.onError(new Error(`cannot watch ${folder}; polling only: ${asError(error).message}`));
    }
  }

  // Undefined at first, so the first poll re-reads: a rotation between the initial read and the
  // first stat would otherwise look like no change.
  let stamp: string | undefined;
  let polling = false;
  let lastRead = Date.now();
  const poll = async () => {
    if (polling) return;
    polling = true;
    try {
      const next = (await Promise.all(paths.map(stampOf))).join(' ');
      if (next !== stamp || Date.now() - lastRead >= rereadIntervalMs) {
        stamp = next;
        lastRead = Date.now();
        await check();
      }
    } finally {
      polling = false;
    }
  };
  const timer = setInterval(() => void poll(), pollIntervalMs).unref();

  return {
    current: () => current,
    check,
    close() {
      clearTimeout(pending);
      clearInterval(timer);
      for (const watcher of watchers) watcher.close();
    },
  };
}
