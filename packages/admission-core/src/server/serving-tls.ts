// The serving certificate: loaded at start, installed on the server again whenever its files
// change (new handshakes get it, open connections keep theirs), reported in logs and metrics.
// Reading, checking and watching the files is kube-runtime's TLS watcher, shared with the
// kube-api-exposer.
import type { X509Certificate } from 'node:crypto';
import type { SecureContextOptions } from 'node:tls';
import {
  checkTlsPair,
  loadTlsFiles,
  watchTlsFiles,
  type TlsFiles as WatchedFiles,
  type TlsPair,
  type TlsWatcher,
} from '@kfx/kube-runtime/serving';
import type { Logger } from 'pino';
import type { AdmissionMetrics } from './metrics.js';

export type { TlsPair, TlsWatcher };

/** The serving certificate and key files (a cert-manager Secret's tls.crt and tls.key). */
export type TlsFiles = Omit<WatchedFiles, 'caFile'>;

/** TLS 1.2 is the floor; Node's defaults choose the ciphers. */
export const TLS_SETTINGS: SecureContextOptions = { minVersion: 'TLSv1.2' };

export interface ServingTlsOptions {
  metrics: AdmissionMetrics;
  log: Logger;
  pollIntervalMs: number;
}

function report(certificate: X509Certificate, options: ServingTlsOptions, why: string): void {
  options.metrics.certificateExpiry.set(Date.parse(certificate.validTo) / 1000);
  const { subject, validTo, serialNumber: serial } = certificate;
  options.log.info({ subject, validTo, serial }, why);
}

export interface ServingTls {
  pair: TlsPair;
  /** Watches the files (nothing to watch for PEM strings) and installs each new, valid pair. */
  watch(install: (context: SecureContextOptions) => void): TlsWatcher | undefined;
}

/** Reads (files) or takes (PEM strings) the pair and checks that the key fits the certificate. */
export async function loadServingTls(
  tls: TlsFiles | TlsPair,
  options: ServingTlsOptions,
): Promise<ServingTls> {
  if (!('certFile' in tls)) {
    const pair = { cert: tls.cert, key: tls.key };
    report(checkTlsPair(pair, 'the tls option'), options, 'serving certificate loaded');
    return { pair, watch: () => undefined };
  }
  const files = { certFile: tls.certFile, keyFile: tls.keyFile };
  const loaded = await loadTlsFiles(files);
  report(loaded.certificate, options, 'serving certificate loaded');
  const { metrics, log } = options;
  return {
    pair: { cert: loaded.cert, key: loaded.key },
    watch: (install) =>
      watchTlsFiles(files, loaded, {
        pollIntervalMs: options.pollIntervalMs,
        onChange: (next) => {
          install({ ...TLS_SETTINGS, cert: next.cert, key: next.key });
          metrics.tlsReloads.inc({ result: 'success' });
          report(next.certificate, options, 'serving certificate reloaded');
        },
        onError: (error) => {
          metrics.tlsReloads.inc({ result: 'error' });
          log.warn(
            { err: error },
            'TLS files changed but cannot be used; keeping the current ones',
          );
        },
      }),
  };
}
