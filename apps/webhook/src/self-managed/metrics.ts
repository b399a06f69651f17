// The metrics of self-managed TLS, on the registry /metrics serves. Alert on
// kfx_webhook_tls_trusted == 0 for a ready-looking Pod, on writes with result="error", and on
// kfx_admission_tls_certificate_expiry_timestamp_seconds (admission-core's) coming near.
import { Counter, Gauge, type Registry } from 'prom-client';

export interface TlsKeeperMetrics {
  /** Writes of the Secret (issue, stage, promote, prune) and the caBundle, by result. */
  writes: Counter<'step' | 'result'>;
  /** Reads of the Secret and the webhook configuration, by result. */
  checks: Counter<'result'>;
  /** 1 while the certificate served is one the webhook configuration trusts. */
  trusted: Gauge;
}

export function createTlsKeeperMetrics(registry: Registry): TlsKeeperMetrics {
  return {
    writes: new Counter({
      name: 'kfx_webhook_tls_writes_total',
      help: 'Self-managed TLS writes, by step (issue, stage, promote, prune: the Secret; ca-bundle: the webhook configuration) and result (success, conflict: another replica wrote first, error).',
      labelNames: ['step', 'result'],
      registers: [registry],
    }),
    checks: new Counter({
      name: 'kfx_webhook_tls_checks_total',
      help: 'Self-managed TLS checks of the Secret and the webhook configuration, by result (success, error).',
      labelNames: ['result'],
      registers: [registry],
    }),
    trusted: new Gauge({
      name: 'kfx_webhook_tls_trusted',
      help: 'Self-managed TLS: 1 while the certificate served is one the webhook configuration trusts, else 0.',
      registers: [registry],
    }),
  };
}
