// The rewriter's own metric, on the registry admission-core's kfx_admission_* series use (the
// API client's, as kfx-webhook builds both on one): claims a rule left on their class because the
// target class usually cannot serve them.
import { Counter, type Registry } from 'prom-client';
import type { HoldReason } from './movable.js';

export const SKIPPED_CLAIMS_METRIC = 'kfx_pvc_rewriter_claims_skipped_total';

export type SkippedClaims = Counter<'reason' | 'rule'>;

/** The counter on `registry`, made on first use and shared by every rewriter on it. */
export function skippedClaims(registry: Registry): SkippedClaims {
  const existing = registry.getSingleMetric(SKIPPED_CLAIMS_METRIC);
  if (existing instanceof Counter) return existing;
  return new Counter({
    name: SKIPPED_CLAIMS_METRIC,
    help: 'PersistentVolumeClaims created on their own class although a rule matched them, because the target class usually cannot serve them, by reason (data-source, volume-mode) and rule index. Dry runs are not counted.',
    labelNames: ['reason', 'rule'],
    registers: [registry],
  });
}

export function countSkipped(
  counter: SkippedClaims,
  skipped: { index: number; reasons: readonly HoldReason[] },
): void {
  for (const reason of skipped.reasons) counter.inc({ reason, rule: String(skipped.index) });
}
