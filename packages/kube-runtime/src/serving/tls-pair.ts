// A serving certificate and key (and optionally a CA bundle) read from files and checked before
// anyone uses them: the certificate parses, the key belongs to it, the CA parses. Every error
// names the file (or both files) at fault, so a log line says what to fix.
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';
import { messageOf } from '../message-of.js';

export interface TlsFiles {
  certFile: string;
  keyFile: string;
  /** A CA bundle to watch along with the pair (e.g. an upstream's CA), if any. */
  caFile?: string | undefined;
}

export interface TlsPair {
  cert: string;
  key: string;
}

/** What the files held at one moment. */
export interface TlsText extends TlsPair {
  /** The CA bundle's PEM text, when `caFile` was given. */
  ca: string | undefined;
}

/** The files' contents, checked. */
export interface TlsMaterial extends TlsText {
  /** The serving certificate, parsed (subject, validTo, serial…). */
  certificate: X509Certificate;
}

/**
 * Throws an error naming `source` when the certificate does not parse or the key does not belong
 * to it; returns the parsed certificate.
 */
export function checkTlsPair(pair: TlsPair, source: string): X509Certificate {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(pair.cert);
  } catch (error) {
    throw new Error(`TLS certificate from ${source}: not a PEM certificate: ${messageOf(error)}`, {
      cause: error,
    });
  }
  try {
    createSecureContext(pair);
  } catch (error) {
    throw new Error(`TLS certificate and key from ${source}: ${messageOf(error)}`, {
      cause: error,
    });
  }
  return certificate;
}

async function readText(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the TLS ${what} ${path}: ${messageOf(error)}`, { cause: error });
  }
}

/**
 * The files' contents, unchecked (the watcher compares them before checking). When files cannot
 * be read the error names each of them, certificate first, whichever read failed first.
 */
export async function readTlsText(files: TlsFiles): Promise<TlsText> {
  const reads = [
    readText(files.certFile, 'certificate'),
    readText(files.keyFile, 'key'),
    files.caFile === undefined ? Promise.resolve(undefined) : readText(files.caFile, 'CA bundle'),
  ] as const;
  const failed = (await Promise.allSettled(reads)).flatMap((result) =>
    result.status === 'rejected' ? [result.reason as Error] : [],
  );
  const [first, ...more] = failed;
  if (first !== undefined && more.length === 0) throw first;
  if (first !== undefined)
    throw new AggregateError(failed, failed.map((error) => error.message).join('; '));
  const [cert, key, ca] = await Promise.all(reads);
  return { cert, key, ca };
}

/** Throws an error naming `source` when the CA bundle does not start with a PEM certificate. */
export function checkCaBundle(pem: string, source: string): void {
  try {
    new X509Certificate(pem);
  } catch (error) {
    throw new Error(`TLS CA bundle ${source}: not a PEM certificate: ${messageOf(error)}`, {
      cause: error,
    });
  }
}

/** Reads and checks the files: what a server loads at start. Errors name the files. */
export async function loadTlsFiles(files: TlsFiles): Promise<TlsMaterial> {
  const text = await readTlsText(files);
  const certificate = checkTlsPair(text, `${files.certFile} and ${files.keyFile}`);
  if (text.ca !== undefined) checkCaBundle(text.ca, files.caFile ?? '');
  return { ...text, certificate };
}
