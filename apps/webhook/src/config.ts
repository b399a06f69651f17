// The kfx-webhook configuration file: YAML, checked in full at start-up. A wrong key or value
// stops the process with the key's path (`tls.certFile: Required`) before anything listens.
// The values' checks are in config-values.ts, the `tls` key's in tls-config.ts.
import { ConfigError, describeIssues, readConfigFile } from '@kfx/kube-runtime/serving';
import { z } from 'zod';
import { count, milliseconds, port, typed } from './config-values.js';
import { tlsShape, type TlsConfig } from './tls-config.js';
import type { HandlerFactory } from './webhooks.js';

/**
 * Bounds on the work and memory of the admission server (see @kfx/admission-core); an absent key
 * keeps the library's default, sized for the chart's 384Mi memory limit.
 */
const limitsShape = z.strictObject(
  {
    maxBodyBytes: count.optional(),
    maxInFlight: count.optional(),
    maxAddressInFlight: count.optional(),
    maxInFlightBytes: count.optional(),
    maxConnectionBytes: count.optional(),
    maxAddressBytes: count.optional(),
    maxPatchBytes: count.optional(),
    answerTimeoutMs: count.optional(),
    maxConnections: count.optional(),
    maxConcurrentStreams: count.optional(),
    maxJsonDepth: count.optional(),
    maxJsonValues: count.optional(),
  },
  { error: typed('a mapping of limits') },
);

/** The limits given in the file (absent keys are left out, not undefined). */
type Limits = { [K in keyof z.output<typeof limitsShape>]?: number };

/** The keys every kfx-webhook configuration has, whatever handlers it serves. */
const baseShape = {
  /** HTTPS port for the apiserver's calls and the health checks. */
  port: port.default(8443),
  /** Plain-HTTP port for `GET /metrics`. */
  metricsPort: port.default(9090),
  /** The serving certificate's files, or `selfManaged` (tls-config.ts). */
  tls: tlsShape,
  logLevel: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace'], {
      error: 'expected one of fatal, error, warn, info, debug, trace',
    })
    .default('info'),
  /** Longest graceful drain on SIGTERM; keep it under terminationGracePeriodSeconds. */
  shutdownTimeoutMs: milliseconds.default(20_000),
  limits: limitsShape.default({}),
};

type BaseConfig = z.output<z.ZodObject<typeof baseShape>>;

export interface WebhookAppConfig extends Omit<BaseConfig, 'limits' | 'tls'> {
  tls: TlsConfig;
  limits: Limits;
  /** Each handler's section, parsed by its schema; absent sections are undefined. */
  sections: Record<string, unknown>;
}

/** The document checked against the base keys and the handlers' sections, or a ConfigError. */
function checkShape<Base extends z.ZodRawShape>(
  document: unknown,
  handlers: readonly HandlerFactory[],
  base: Base,
) {
  const sections = Object.fromEntries(
    handlers.map((handler) => [handler.section, handler.schema.optional()]),
  );
  const schema = z.strictObject({ ...base, ...sections }, { error: typed('a mapping of keys') });
  const result = schema.safeParse(document ?? {}, { reportInput: true });
  if (result.success) return result.data;
  const known = [...Object.keys(baseShape), ...handlers.map((h) => h.section)];
  const lines = describeIssues(result.error.issues);
  if (
    result.error.issues.some(
      (issue) => issue.code === 'unrecognized_keys' && issue.path.length === 0,
    )
  ) {
    lines.push(`(the top-level keys are ${known.join(', ')})`);
  }
  throw new ConfigError(lines);
}

/** Checks a parsed document; the error lists every problem, one key path per line. */
export function parseConfig(
  document: unknown,
  handlers: readonly HandlerFactory[],
): WebhookAppConfig {
  const data = checkShape(document, handlers, baseShape) as BaseConfig & Record<string, unknown>;
  const { port, metricsPort, tls, logLevel, shutdownTimeoutMs, limits, ...rest } = data;
  const parsed: Record<string, unknown> = rest;
  return {
    port,
    metricsPort,
    tls,
    logLevel,
    shutdownTimeoutMs,
    // Only the keys given: the server's own defaults fill the rest.
    limits: Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined)),
    sections: Object.fromEntries(
      handlers.map((handler) => [handler.section, parsed[handler.section]]),
    ),
  };
}

/**
 * Checks a parsed document as kfx-webhook does at start: a ConfigError headed
 * `invalid configuration <source>:` lists every bad key (kfx preview gives the same message).
 */
export function checkConfig(
  document: unknown,
  source: string,
  handlers: readonly HandlerFactory[],
): WebhookAppConfig {
  try {
    return parseConfig(document, handlers);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(error.problems, `invalid configuration ${source}:`);
  }
}

/**
 * Checks the handlers' sections of a document, and whatever else of a kfx-webhook configuration
 * it holds, as kfx-webhook does: a file of `proxyInjector` and `pvcRewriter` alone is whole for
 * kfx preview, which reads nothing else (the keys of the server, `tls` among them, may be left
 * out, and are checked when present).
 */
export function checkSections(
  document: unknown,
  source: string,
  handlers: readonly HandlerFactory[],
): void {
  const optionalBase = Object.fromEntries(
    Object.entries(baseShape).map(([key, schema]) => [key, schema.optional()]),
  );
  try {
    checkShape(document, handlers, optionalBase);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(error.problems, `invalid configuration ${source}:`);
  }
}

/** Reads and checks the YAML file; a ConfigError names the file and every bad key. */
export function loadConfig(file: string, handlers: readonly HandlerFactory[]): WebhookAppConfig {
  return checkConfig(readConfigFile(file), file, handlers);
}
