// The Helm chart's alerts (monitoring.prometheusRule), tested by Prometheus itself: the chart
// `kfx expose-api manifests --format helm` writes, rendered by helm, the rules run by `promtool
// test rules` against series as the proxy exports them. Off by default: nothing of it renders
// then. Each alert's description names the `kfx doctor` check to run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promtoolTestRules, renderChart, type PromtoolTest } from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderManifests } from '../index.js';

const scratch = mkdtempSync(join(tmpdir(), 'kfx-exposer-alerts-'));
const chart = join(scratch, 'chart');
const target = 'job="kfx-expose-api-metrics", namespace="kfx-system", pod="kfx-expose-api-0"';
let groups: { rules: { alert: string; annotations: Record<string, string> }[] }[];

beforeAll(async () => {
  await renderManifests({
    externalAddress: ['203.0.113.10'],
    image: 'kfx/cli:1.2.3',
    format: 'helm',
    output: chart,
  });
  const rendered = await renderChart(chart, {
    release: 'kfx-expose-api',
    namespace: 'kfx-system',
    values: { monitoring: { prometheusRule: { enabled: true } } },
  });
  const rule = rendered.find((object) => object.kind === 'PrometheusRule') as
    { spec: { groups: typeof groups } } | undefined;
  groups = rule?.spec.groups ?? [];
});
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

describe("the exposer chart's monitoring", () => {
  it('renders nothing by default', async () => {
    const kinds = (
      await renderChart(chart, { release: 'kfx-expose-api', namespace: 'kfx-system' })
    ).map((object) => object.kind);
    expect(kinds).not.toContain('PrometheusRule');
    expect(kinds).not.toContain('ServiceMonitor');
  });

  it('alerts on refusing, shedding and the certificate, each naming the kfx doctor check', async () => {
    const rules = groups.flatMap((group) => group.rules);
    expect(rules.map((rule) => rule.alert)).toEqual([
      'KfxExposerRefusingConnections',
      'KfxExposerSheddingLongRunning',
      'KfxExposerEvictingUnauthenticated',
      'KfxExposerCertificateExpiring',
    ]);
    for (const rule of rules)
      expect(rule.annotations.description).toContain('`kfx doctor --check exposer`');
    const tests: PromtoolTest[] = [
      {
        interval: '1m',
        input_series: [
          {
            series: `kfx_exposer_connections_refused_total{${target}, limit="maxConnectionsPerSource"}`,
            values: '0+2x40',
          },
          {
            series: `kfx_exposer_connections_refused_total{${target}, limit="maxConnections"}`,
            values: '0x40',
          },
          {
            series: `kfx_exposer_long_running_refused_total{${target}, limit="maxLongRunningPerIdentity"}`,
            values: '0+1x40',
          },
          { series: `kfx_exposer_connections_evicted_total{${target}}`, values: '0x40' },
          {
            series: `kfx_exposer_certificate_expiry_timestamp_seconds{${target}}`,
            values: `${3 * 86400}x200`,
          },
        ],
        alert_rule_test: [
          { eval_time: '8m', alertname: 'KfxExposerRefusingConnections', exp_alerts: [] },
          {
            eval_time: '20m',
            alertname: 'KfxExposerRefusingConnections',
            exp_alerts: [
              {
                exp_labels: {
                  severity: 'warning',
                  namespace: 'kfx-system',
                  limit: 'maxConnectionsPerSource',
                },
                exp_annotations: {
                  summary: 'kfx expose-api refuses connections at a limit',
                  description:
                    'Connections are refused at maxConnectionsPerSource in kfx-system: remote workloads cannot reach the API. Run `kfx doctor --check exposer`, and raise the limit or find the client that holds the connections.',
                },
              },
            ],
          },
          {
            eval_time: '20m',
            alertname: 'KfxExposerSheddingLongRunning',
            exp_alerts: [
              {
                exp_labels: {
                  severity: 'warning',
                  namespace: 'kfx-system',
                  limit: 'maxLongRunningPerIdentity',
                },
                exp_annotations: {
                  summary: 'kfx expose-api sheds watches and streams',
                  description:
                    'Watches, followed logs or upgrades are answered 429 at maxLongRunningPerIdentity in kfx-system. Run `kfx doctor --check exposer`.',
                },
              },
            ],
          },
          { eval_time: '30m', alertname: 'KfxExposerEvictingUnauthenticated', exp_alerts: [] },
          {
            eval_time: '2h',
            alertname: 'KfxExposerCertificateExpiring',
            exp_alerts: [
              {
                exp_labels: {
                  severity: 'warning',
                  namespace: 'kfx-system',
                  pod: 'kfx-expose-api-0',
                },
                exp_annotations: {
                  summary: "kfx expose-api's serving certificate is near its end",
                  description:
                    'The certificate kfx-expose-api-0 serves ends in 2d 22h 0m 0s: cert-manager has not renewed it. Run `kfx doctor --check exposer`.',
                },
              },
            ],
          },
        ],
      },
    ];
    const result = await promtoolTestRules(groups, tests);
    expect(result.output).toContain('SUCCESS');
    expect(result.code, result.output).toBe(0);
  });
});
