// The admission server's options, their defaults, and the checks that turn a mistake (two
// webhooks on one path, a negative limit) into an error at construction instead of at 3 a.m.
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { DEFAULT_JSON_LIMITS, MAX_JSON_DEPTH_LIMIT } from '../review/json-shape.js';
import { DEFAULT_MAX_PATCH_BYTES } from '../review/patch.js';
import type { TlsFiles, TlsPair } from './serving-tls.js';
import type { Webhook } from '../webhook.js';

export interface AdmissionServerOptions {
  webhooks: readonly Webhook[];
  /**
   * Certificate and key files (watched and reloaded when they change) or PEM strings; with
   * `clientCaFile` (or `clientCa`), only clients with a certificate that CA signed are served.
   */
  tls: TlsFiles | TlsPair;
  /** HTTPS port. Default 8443; 0 picks a free port (see `start()`'s answer). */
  port?: number;
  /** Address to listen on. Default: every interface. */
  host?: string;
  /** Plain-HTTP port for `GET /metrics`. Default 9090; 0 picks a free port; false: none. */
  metricsPort?: number | false;
  /** Address for the metrics port. Default: every interface. */
  metricsHost?: string;
  /** Default: pino at level info, JSON to stdout. */
  logger?: Logger;
  /** Registry for the metrics. Default: a new one, with Node's process metrics. */
  registry?: Registry;
  /** Largest accepted body. Default 3 MiB (the apiserver's own request limit). */
  maxBodyBytes?: number;
  /**
   * Deepest nesting of objects and arrays in a review (the review is level 1). Default 128, at
   * most 1000. Deeper reviews are refused (400) before anything walks them recursively.
   */
  maxJsonDepth?: number;
  /** Most JSON values in a review; more are refused (400). Default 200,000. */
  maxJsonValues?: number;
  /**
   * Admissions in progress at once; more are answered 429 with Retry-After before their body is
   * read. Default 128; Infinity: no bound.
   */
  maxInFlight?: number;
  /**
   * Admissions in progress from one remote address (a client that trickles its bodies holds its
   * places until bodyTimeoutMs), so that the apiserver keeps the rest. Default 64; Infinity:
   * no bound.
   */
  maxAddressInFlight?: number;
  /**
   * Bytes of request bodies in progress and of answers their clients have not read yet, held
   * together; a body or an answer that would go past it is answered 429. At least maxBodyBytes
   * and twice maxPatchBytes. Default 16 MiB; Infinity: no bound.
   */
  maxInFlightBytes?: number;
  /**
   * The same bytes for one connection (an HTTP/1.1 socket or an HTTP/2 session), so that one
   * client cannot take them all. At least maxBodyBytes and twice maxPatchBytes. Default 4 MiB;
   * Infinity: no bound.
   */
  maxConnectionBytes?: number;
  /**
   * The same bytes for all connections from one remote address together (one client opening
   * many connections), so that the apiserver keeps the rest. At least maxBodyBytes and twice
   * maxPatchBytes. Default 8 MiB; Infinity: no bound.
   */
  maxAddressBytes?: number;
  /**
   * Largest patch answered, in bytes of JSON before base64 (an answer is about 4/3 of it). A
   * larger patch refuses its object (413, naming the limit) whatever the failure mode: it is not
   * admitted without its change. Default 1 MiB; Infinity: no bound.
   */
  maxPatchBytes?: number;
  /**
   * Time a client has to take an answer once it is written; an answer still unread then is cut
   * (HTTP/2 stream reset, HTTP/1.1 connection closed) and its bytes given back. Default 10000 ms;
   * Infinity: no deadline.
   */
  answerTimeoutMs?: number;
  /** Open connections (HTTP/1.1 and HTTP/2 together); more are closed at once. Default 256. */
  maxConnections?: number;
  /** Concurrent streams per HTTP/2 connection (SETTINGS_MAX_CONCURRENT_STREAMS). Default 100. */
  maxConcurrentStreams?: number;
  /** Time allowed to receive the whole body. Default 10000 ms. */
  bodyTimeoutMs?: number;
  /**
   * Time an asynchronous handler may take before its failure mode answers. Default 3000 ms: below
   * the 5 s timeoutSeconds renderWebhookConfiguration writes, so the answer is ours, not a timeout.
   */
  handlerTimeoutMs?: number;
  /** Longest graceful drain on close() before connections are cut. Default 20000 ms. */
  shutdownTimeoutMs?: number;
  /**
   * Compare the TLS files' identity, size and times this often and reload them when they
   * changed, for rotations that no folder event reports. Default 2000 ms.
   */
  tlsPollIntervalMs?: number;
  /**
   * Apply each patch to the object the apiserver sent and compare the result with the handler's
   * object before answering; a patch that does not reproduce it fails the handler
   * (`invalid-patch`). Costs about what the patch touches. Default false: the patch comes from a
   * diff tested against an independent JSON Patch implementation; turn it on while writing a
   * handler or chasing a bug. `reviewAdmission()` checks by default.
   */
  checkPatches?: boolean;
  /**
   * More for `GET /readyz` to wait on, beside the server's state and the webhooks' own checks:
   * e.g. that the certificate served is one the webhook configuration trusts. Asked on every
   * probe; a throw counts as not ready.
   */
  ready?: () => { ok: boolean; reasons: string[] };
}

export type ResolvedOptions = Required<
  Omit<AdmissionServerOptions, 'host' | 'metricsHost' | 'logger' | 'registry' | 'ready'>
> &
  Pick<AdmissionServerOptions, 'host' | 'metricsHost' | 'logger' | 'registry' | 'ready'>;

const RESERVED = new Set(['/healthz', '/readyz']);

function checkNumber(name: string, value: number, min: number, max = Infinity): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    const range = max === Infinity ? `≥ ${min}` : `${min}-${max}`;
    throw new TypeError(
      `createAdmissionServer: ${name} must be an integer ${range}, got ${String(value)}`,
    );
  }
}

/** A bound that may be lifted with Infinity (the benchmarks compare against no bound). */
function checkBound(name: string, value: number, min: number): void {
  if (value !== Infinity) checkNumber(name, value, min);
}

/** A byte bound must hold the largest body, and the largest answer (a patch in base64). */
function checkRoom(
  name: 'maxInFlightBytes' | 'maxConnectionBytes' | 'maxAddressBytes',
  resolved: ResolvedOptions,
): void {
  const value = resolved[name];
  if (value < resolved.maxBodyBytes) {
    throw new TypeError(
      `createAdmissionServer: ${name} (${value}) must be at least maxBodyBytes ` +
        `(${resolved.maxBodyBytes}), or a body of the largest size is never admitted`,
    );
  }
  if (value < 2 * resolved.maxPatchBytes) {
    throw new TypeError(
      `createAdmissionServer: ${name} (${value}) must be at least twice maxPatchBytes ` +
        `(${resolved.maxPatchBytes}), or an answer with the largest patch is never sent`,
    );
  }
}

export function resolveOptions(options: AdmissionServerOptions): ResolvedOptions {
  const resolved: ResolvedOptions = {
    port: 8443,
    metricsPort: 9090,
    maxBodyBytes: 3 * 1024 * 1024,
    maxJsonDepth: DEFAULT_JSON_LIMITS.maxDepth,
    maxJsonValues: DEFAULT_JSON_LIMITS.maxValues,
    maxInFlight: 128,
    maxAddressInFlight: 64,
    maxInFlightBytes: 16 * 1024 * 1024,
    maxConnectionBytes: 4 * 1024 * 1024,
    maxAddressBytes: 8 * 1024 * 1024,
    maxPatchBytes: DEFAULT_MAX_PATCH_BYTES,
    answerTimeoutMs: 10_000,
    maxConnections: 256,
    maxConcurrentStreams: 100,
    bodyTimeoutMs: 10_000,
    handlerTimeoutMs: 3_000,
    shutdownTimeoutMs: 20_000,
    tlsPollIntervalMs: 2_000,
    checkPatches: false,
    ...options,
  };
  const { webhooks, tls } = resolved;
  const list: unknown = webhooks;
  if (!Array.isArray(list) || list.length === 0) {
    throw new TypeError('createAdmissionServer: webhooks must list at least one webhook');
  }
  const paths = new Map<string, string>();
  const names = new Set<string>();
  for (const webhook of webhooks) {
    if (RESERVED.has(webhook.path)) {
      throw new TypeError(
        `createAdmissionServer: webhook ${webhook.name} uses the reserved path ${webhook.path}`,
      );
    }
    const other = paths.get(webhook.path);
    if (other !== undefined) {
      throw new TypeError(
        `createAdmissionServer: webhooks ${other} and ${webhook.name} share the path ${webhook.path}`,
      );
    }
    if (names.has(webhook.name)) {
      throw new TypeError(`createAdmissionServer: two webhooks are named ${webhook.name}`);
    }
    paths.set(webhook.path, webhook.name);
    names.add(webhook.name);
  }
  const files =
    'certFile' in tls && typeof tls.certFile === 'string' && typeof tls.keyFile === 'string';
  const pems = 'cert' in tls && typeof tls.cert === 'string' && typeof tls.key === 'string';
  if (files === pems) {
    throw new TypeError(
      'createAdmissionServer: tls must be { certFile, keyFile } or { cert, key }',
    );
  }
  const clientCa =
    'clientCaFile' in tls ? tls.clientCaFile : 'clientCa' in tls ? tls.clientCa : undefined;
  if (clientCa !== undefined && (typeof clientCa !== 'string' || clientCa === '')) {
    throw new TypeError(
      `createAdmissionServer: tls.${files ? 'clientCaFile' : 'clientCa'} must be a non-empty string`,
    );
  }
  checkNumber('port', resolved.port, 0);
  if (resolved.metricsPort !== false) checkNumber('metricsPort', resolved.metricsPort, 0);
  checkNumber('maxBodyBytes', resolved.maxBodyBytes, 1);
  checkNumber('maxJsonDepth', resolved.maxJsonDepth, 3, MAX_JSON_DEPTH_LIMIT);
  checkBound('maxJsonValues', resolved.maxJsonValues, 1);
  checkBound('maxInFlight', resolved.maxInFlight, 1);
  checkBound('maxAddressInFlight', resolved.maxAddressInFlight, 1);
  checkBound('maxPatchBytes', resolved.maxPatchBytes, 1);
  for (const name of ['maxInFlightBytes', 'maxConnectionBytes', 'maxAddressBytes'] as const) {
    checkBound(name, resolved[name], 1);
    checkRoom(name, resolved);
  }
  checkBound('maxConnections', resolved.maxConnections, 1);
  checkBound('maxConcurrentStreams', resolved.maxConcurrentStreams, 1);
  checkNumber('bodyTimeoutMs', resolved.bodyTimeoutMs, 1);
  checkNumber('handlerTimeoutMs', resolved.handlerTimeoutMs, 1);
  checkBound('answerTimeoutMs', resolved.answerTimeoutMs, 1);
  checkNumber('shutdownTimeoutMs', resolved.shutdownTimeoutMs, 0);
  checkNumber('tlsPollIntervalMs', resolved.tlsPollIntervalMs, 1);
  if (resolved.ready !== undefined && typeof resolved.ready !== 'function') {
    throw new TypeError('createAdmissionServer: ready must be a function');
  }
  if (typeof resolved.checkPatches !== 'boolean') {
    throw new TypeError(
      `createAdmissionServer: checkPatches must be true or false, got ${String(resolved.checkPatches)}`,
    );
  }
  return resolved;
}
