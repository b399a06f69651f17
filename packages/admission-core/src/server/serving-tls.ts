// The serving certificate: loaded at start, installed on the server again whenever its files
// change (new handshakes get it, open connections keep theirs), reported in logs and metrics.
// Reading, checking and watching the files is kube-runtime's TLS watcher, shared with the
// kube-api-exposer.
import type { X509Certificate } from 'node:crypto';
import type { SecureContextOptions } from 'node:tls';
import {
  checkCaBundle,
  checkTlsPair,
  loadTlsFiles,
  watchTlsFiles,
  type TlsPair as RuntimePair,
  type TlsWatcher,
} from '@kfx/kube-runtime/serving';
import type { Logger } from 'pino';
import type { AdmissionMetrics } from './metrics.js';

export type { TlsWatcher };

/**
 * The serving certificate and key files (a cert-manager Secret's tls.crt and tls.key), and, to
 * serve only clients with a certificate (the apiserver's, see AdmissionConfiguration), the file
 * of the CA that signs theirs. All three are watched and reloaded.
 */
export interface TlsFiles {
  certFile: string;
  keyFile: string;
  clientCaFile?: string | undefined;
  /** Files or PEM strings, not both: the server refuses an object with both. */
  cert?: never;
  key?: never;
  clientCa?: never;
}

/** The same as PEM strings. */
export interface TlsPair extends RuntimePair {
  clientCa?: string | undefined;
  certFile?: never;
  keyFile?: never;
  clientCaFile?: never;
}

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

/** What the server is created with: the pair, and the client CA when clients must show one. */
export interface ServingContext {
  cert: string;
  key: string;
  ca?: string;
  /** With a client CA: the handshake of a client without a certificate it signed fails. */
  requestCert?: boolean;
  rejectUnauthorized?: boolean;
}

function context(cert: string, key: string, ca: string | undefined): ServingContext {
  return ca === undefined
    ? { cert, key }
    : { cert, key, ca, requestCert: true, rejectUnauthorized: true };
}

export interface ServingTls {
  context: ServingContext;
  /** Watches the files (nothing to watch for PEM strings) and installs each new, valid set. */
  watch(install: (context: SecureContextOptions) => void): TlsWatcher | undefined;
}

/**
 * What a server created with PEM strings installs when it is given a new pair at run time
 * (`AdmissionServer.setTls`): the pair checked (an error names `source`), reported in the log
 * and the metrics as a reload, with the client CA it was created with.
 */
export function replacedServingTls(
  pair: { cert: string; key: string },
  clientCa: string | undefined,
  options: ServingTlsOptions & { source: string },
): SecureContextOptions {
  let certificate: X509Certificate;
  try {
    certificate = checkTlsPair(pair, options.source);
  } catch (error) {
    options.metrics.tlsReloads.inc({ result: 'error' });
    throw error;
  }
  options.metrics.tlsReloads.inc({ result: 'success' });
  report(certificate, options, 'serving certificate replaced');
  return { ...TLS_SETTINGS, ...context(pair.cert, pair.key, clientCa) };
}

/** Reads (files) or takes (PEM strings) the pair and checks that the key fits the certificate. */
export async function loadServingTls(
  tls: TlsFiles | TlsPair,
  options: ServingTlsOptions,
): Promise<ServingTls> {
  if (tls.certFile === undefined) {
    report(checkTlsPair(tls, 'the tls option'), options, 'serving certificate loaded');
    if (tls.clientCa !== undefined) checkCaBundle(tls.clientCa, 'the tls.clientCa option');
    return { context: context(tls.cert, tls.key, tls.clientCa), watch: () => undefined };
  }
  const files = { certFile: tls.certFile, keyFile: tls.keyFile, caFile: tls.clientCaFile };
  const loaded = await loadTlsFiles(files);
  report(loaded.certificate, options, 'serving certificate loaded');
  if (loaded.ca !== undefined) options.log.info({ clientCaFile: files.caFile }, 'client CA loaded');
  const { metrics, log } = options;
  return {
    context: context(loaded.cert, loaded.key, loaded.ca),
    watch: (install) =>
      watchTlsFiles(files, loaded, {
        pollIntervalMs: options.pollIntervalMs,
        onChange: (next) => {
          install({ ...TLS_SETTINGS, ...context(next.cert, next.key, next.ca) });
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
