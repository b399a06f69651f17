// The serving certificate: loaded at start, installed on the server again whenever its files
// change (new handshakes get it, open connections keep theirs), reported in logs and metrics.
import { X509Certificate } from 'node:crypto';
import type { SecureContextOptions } from 'node:tls';
import type { Logger } from 'pino';
import type { AdmissionMetrics } from './metrics.js';
import {
  checkTlsPair,
  readTlsFiles,
  watchTlsFiles,
  type TlsFiles,
  type TlsPair,
  type TlsWatcher,
} from './tls-files.js';

/** TLS 1.2 is the floor; Node's defaults choose the ciphers. */
export const TLS_SETTINGS: SecureContextOptions = { minVersion: 'TLSv1.2' };

export interface ServingTlsOptions {
  metrics: AdmissionMetrics;
  log: Logger;
  pollIntervalMs: number;
}

function report(pair: TlsPair, options: ServingTlsOptions, why: string): void {
  const certificate = new X509Certificate(pair.cert);
  options.metrics.certificateExpiry.set(Date.parse(certificate.validTo) / 1000);
  const { subject, validTo, serialNumber: serial } = certificate;
  options.log.info({ subject, validTo, serial }, why);
}

/** Reads (files) or takes (PEM strings) the pair and checks that the key fits the certificate. */
export async function loadServingTls(tls: TlsFiles | TlsPair, options: ServingTlsOptions) {
  let pair: TlsPair;
  if ('certFile' in tls) {
    pair = await readTlsFiles(tls);
  } else {
    pair = { cert: tls.cert, key: tls.key };
    checkTlsPair(pair, 'the tls option');
  }
  report(pair, options, 'serving certificate loaded');
  return pair;
}

/** Watches the files (nothing to watch for PEM strings) and installs each new, valid pair. */
export function reloadServingTls(
  tls: TlsFiles | TlsPair,
  current: TlsPair,
  install: (context: SecureContextOptions) => void,
  options: ServingTlsOptions,
): TlsWatcher | undefined {
  if (!('certFile' in tls)) return undefined;
  const { metrics, log } = options;
  return watchTlsFiles(tls, current, {
    pollIntervalMs: options.pollIntervalMs,
    onChange: (next) => {
      install({ ...TLS_SETTINGS, ...next });
      metrics.tlsReloads.inc({ result: 'success' });
      report(next, options, 'serving certificate reloaded');
    },
    onError: (error) => {
      metrics.tlsReloads.inc({ result: 'error' });
      log.warn({ err: error }, 'TLS files changed but cannot be used; keeping the current ones');
    },
  });
}
