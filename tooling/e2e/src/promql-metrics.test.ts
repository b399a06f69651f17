import { describe, expect, it } from 'vitest';
import { exportedNames, labelValuesMetric, metricNames } from './promql-metrics.js';

describe('metricNames', () => {
  it('finds the metrics of an expression, not its functions, labels, keywords or numbers', () => {
    expect(
      metricNames(
        'histogram_quantile(0.99, sum by (le, webhook) (rate(kfx_admission_duration_seconds_bucket{job=~"$job", outcome!="x by (y)"}[5m])))',
      ),
    ).toEqual(['kfx_admission_duration_seconds_bucket']);
    expect(
      metricNames(
        'sum by (namespace, pod) (a_total{job="j"}) / max by (namespace, pod) (b_profiles{job="j"}) >= 0.9 and on(pod) c - time() < 14 * 86400',
      ),
    ).toEqual(['a_total', 'b_profiles', 'c']);
  });

  it("reads a Grafana variable's label_values", () => {
    expect(labelValuesMetric('label_values(kfx_exposer_requests_total, job)')).toEqual([
      'kfx_exposer_requests_total',
    ]);
  });

  it('lists the series names of an exposition, with those of histograms', () => {
    const names = exportedNames(
      '# HELP a_seconds x\n# TYPE a_seconds histogram\n# TYPE b_total counter\n',
    );
    expect([...names].sort()).toEqual([
      'a_seconds',
      'a_seconds_bucket',
      'a_seconds_count',
      'a_seconds_sum',
      'b_total',
    ]);
  });
});
