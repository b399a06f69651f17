// The admission metrics, registered on the Registry the server was given (or made for itself),
// so that two servers in one process never share or clash over series.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface AdmissionMetrics {
  requests: Counter<'webhook' | 'operation' | 'outcome'>;
  duration: Histogram<'webhook' | 'operation'>;
  patchBytes: Histogram<'webhook'>;
  errors: Counter<'webhook' | 'reason'>;
  tlsReloads: Counter<'result'>;
  certificateExpiry: Gauge;
  inFlightRequests: Gauge;
  inFlightBytes: Gauge;
}

/** What the in-flight gauges read when scraped (the server's bounds on work and memory). */
export interface InFlightState {
  readonly requests: number;
  readonly bytes: number;
}

export const METRIC_NAMES = {
  requests: 'kfx_admission_requests_total',
  duration: 'kfx_admission_duration_seconds',
  patchBytes: 'kfx_admission_patch_bytes',
  errors: 'kfx_admission_errors_total',
  tlsReloads: 'kfx_admission_tls_reloads_total',
  certificateExpiry: 'kfx_admission_tls_certificate_expiry_timestamp_seconds',
  inFlightRequests: 'kfx_admission_in_flight_requests',
  inFlightBytes: 'kfx_admission_in_flight_bytes',
} as const;

/** `inFlight`: read by the in-flight gauges at each scrape (0 without it). */
export function createAdmissionMetrics(
  registry: Registry,
  inFlight?: InFlightState,
): AdmissionMetrics {
  const registers = [registry];
  return {
    requests: new Counter({
      name: METRIC_NAMES.requests,
      help: 'Admission requests answered, by webhook, operation and outcome (allowed, patched, denied, failed-open, failed-closed, bad-request).',
      labelNames: ['webhook', 'operation', 'outcome'],
      registers,
    }),
    duration: new Histogram({
      name: METRIC_NAMES.duration,
      help: 'Time from the first byte of the request body to the end of the answer.',
      labelNames: ['webhook', 'operation'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    patchBytes: new Histogram({
      name: METRIC_NAMES.patchBytes,
      help: 'Size of the JSON Patch sent back (before base64), for answers with a patch.',
      labelNames: ['webhook'],
      buckets: [64, 256, 1024, 4096, 16384, 65536, 262144, 1048576],
      registers,
    }),
    errors: new Counter({
      name: METRIC_NAMES.errors,
      help: 'Failed admissions by webhook and reason: a bad request (invalid-json, invalid-review, body-too-large, body-timeout, too-many-requests, ...), a handler failure (handler-error, handler-timeout, invalid-result, invalid-patch), a patch over maxPatchBytes (patch-too-large) or an answer its client did not take in time (answer-timeout).',
      labelNames: ['webhook', 'reason'],
      registers,
    }),
    tlsReloads: new Counter({
      name: METRIC_NAMES.tlsReloads,
      help: 'Serving certificate reloads (from disk, or given at run time with setTls), by result (success, error: the old one stays).',
      labelNames: ['result'],
      registers,
    }),
    certificateExpiry: new Gauge({
      name: METRIC_NAMES.certificateExpiry,
      help: 'When the serving certificate in use expires (notAfter), as a Unix timestamp.',
      registers,
    }),
    inFlightRequests: new Gauge({
      name: METRIC_NAMES.inFlightRequests,
      help: 'Admissions in progress (reading the body, waiting or running), against maxInFlight.',
      registers,
      collect() {
        this.set(inFlight?.requests ?? 0);
      },
    }),
    inFlightBytes: new Gauge({
      name: METRIC_NAMES.inFlightBytes,
      help: 'Bytes of request bodies in progress and of answers their clients have not read yet, against maxInFlightBytes.',
      registers,
      collect() {
        this.set(inFlight?.bytes ?? 0);
      },
    }),
  };
}
