// The Node.js flags the chart derives from resources.limits.memory (chart/templates/_helpers.tpl,
// kfx-webhook.nodeOptions), for the benchmarks that run the webhook as the chart does.

/** The chart's default resources.limits.memory, in MiB. */
export const CHART_LIMIT_MIB = 384;

/** Old space half the limit; semi-space the limit / 64, between 1 and 16 MiB. */
export function heapFlags(limitMiB: number): string[] {
  const semi = Math.min(16, Math.max(1, Math.floor(limitMiB / 64)));
  return [`--max-old-space-size=${Math.floor(limitMiB / 2)}`, `--max-semi-space-size=${semi}`];
}
