// Keeps the serving certificate and the upstream CA current without a restart. cert-manager
// renews into a Secret; the kubelet swaps the mounted files atomically (a `..data` symlink), so
// the folders are watched for promptness and the files are also re-read on an interval, since
// inotify is not available everywhere. A half-written or mismatched pair is never applied: the
// previous one stays in use and the next check tries again.
import { createHash, X509Certificate } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import tls from 'node:tls';
import type { Logger } from 'pino';
import type { ProxyMetrics } from './metrics.js';

export interface ServingPair {
  cert: string;
  key: string;
}

export interface TlsReloaderOptions {
  certFile: string;
  keyFile: string;
  /** The upstream CA file, when the CA comes from a file. */
  caFile?: string | undefined;
  intervalMs: number;
  onServing: (pair: ServingPair) => void;
  onCa: (pem: string) => void;
  logger: Logger;
  metrics: ProxyMetrics;
}

const hash = (text: string) => createHash('sha256').update(text).digest('hex');

/** Checks that a certificate and key belong together; the message names both files. */
export function validatePair(
  pair: ServingPair,
  certFile: string,
  keyFile: string,
): X509Certificate {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(pair.cert);
  } catch (error) {
    throw new Error(`--tls-cert ${certFile}: not a PEM certificate (${(error as Error).message})`, {
      cause: error,
    });
  }
  try {
    tls.createSecureContext({ cert: pair.cert, key: pair.key });
  } catch (error) {
    throw new Error(
      `--tls-cert ${certFile} and --tls-key ${keyFile} do not make a usable pair: ${(error as Error).message}`,
      { cause: error },
    );
  }
  return certificate;
}

export class TlsReloader {
  readonly #options: TlsReloaderOptions;
  #servingHash = '';
  #caHash = '';
  /** What failed last, so a broken file is reported once, not on every check. */
  #failedHash = '';
  #timer: NodeJS.Timeout | undefined;
  #debounce: NodeJS.Timeout | undefined;
  readonly #watchers: FSWatcher[] = [];
  #running: Promise<void> | undefined;

  constructor(options: TlsReloaderOptions) {
    this.#options = options;
  }

  /** Remembers what was loaded at start, so the first check changes nothing. */
  markLoaded(pair: ServingPair, ca: string | undefined): void {
    this.#servingHash = hash(pair.cert + pair.key);
    if (ca !== undefined) this.#caHash = hash(ca);
    this.#recordExpiry(new X509Certificate(pair.cert));
  }

  start(): void {
    const { certFile, keyFile, caFile, intervalMs } = this.#options;
    this.#timer = setInterval(() => {
      void this.check();
    }, intervalMs);
    this.#timer.unref();
    const folders = new Set(
      [certFile, keyFile, ...(caFile ? [caFile] : [])].map((f) => dirname(f)),
    );
    for (const folder of folders) {
      try {
        const watcher = watch(folder, () => {
          clearTimeout(this.#debounce);
          this.#debounce = setTimeout(() => {
            void this.check();
          }, 100);
          this.#debounce.unref();
        });
        watcher.on('error', () => {
          watcher.close();
        });
        watcher.unref();
        this.#watchers.push(watcher);
      } catch (error) {
        this.#options.logger.debug({ folder, err: error }, 'cannot watch; relying on the interval');
      }
    }
  }

  stop(): void {
    clearInterval(this.#timer);
    clearTimeout(this.#debounce);
    for (const watcher of this.#watchers) watcher.close();
  }

  /** Reads the files again and applies what changed. Never throws. */
  check(): Promise<void> {
    this.#running ??= this.#check().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #check(): Promise<void> {
    const { certFile, keyFile, caFile, logger, metrics } = this.#options;
    let seen = '';
    try {
      const [cert, key, ca] = await Promise.all([
        readFile(certFile, 'utf8'),
        readFile(keyFile, 'utf8'),
        caFile === undefined ? undefined : readFile(caFile, 'utf8'),
      ]);
      seen = hash(cert + key + (ca ?? ''));
      if (seen === this.#failedHash) return;
      const servingHash = hash(cert + key);
      if (servingHash !== this.#servingHash) {
        const certificate = validatePair({ cert, key }, certFile, keyFile);
        this.#options.onServing({ cert, key });
        this.#servingHash = servingHash;
        this.#recordExpiry(certificate);
        metrics.tlsReloads.inc({ result: 'ok' });
        logger.info(
          { certFile, subjectAltName: certificate.subjectAltName, validTo: certificate.validTo },
          'serving certificate reloaded',
        );
      }
      if (ca !== undefined) {
        const caHash = hash(ca);
        if (caHash !== this.#caHash) {
          new X509Certificate(ca);
          this.#options.onCa(ca);
          this.#caHash = caHash;
          metrics.tlsReloads.inc({ result: 'ok' });
          logger.info({ caFile }, 'upstream CA reloaded');
        }
      }
      this.#failedHash = '';
    } catch (error) {
      this.#failedHash = seen;
      metrics.tlsReloads.inc({ result: 'error' });
      logger.warn(
        { err: error, certFile, keyFile, caFile },
        'TLS files not reloaded; the previous ones stay in use',
      );
    }
  }

  #recordExpiry(certificate: X509Certificate): void {
    this.#options.metrics.certificateExpiry.set(Date.parse(certificate.validTo) / 1000);
  }
}
