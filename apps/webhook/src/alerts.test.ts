// The chart's alerts (monitoring.prometheusRule), tested by Prometheus itself: the rules the
// chart renders, series as kfx-webhook exports them, and `promtool test rules` saying which
// alert fires when, with which labels and text. Each alert's description names the `kfx doctor`
// check to run.
import { fileURLToPath } from 'node:url';
import { promtoolTestRules, renderChart, type PromtoolTest } from '@kfx/testenv';
import { beforeAll, describe, expect, it } from 'vitest';

const chart = fileURLToPath(new URL('../chart', import.meta.url));
const target = 'job="kfx-webhook", namespace="kfx-system", pod="kfx-webhook-0"';
let groups: { name: string; rules: { alert: string; annotations: Record<string, string> }[] }[];

beforeAll(async () => {
  const rendered = await renderChart(chart, {
    release: 'kfx-webhook',
    namespace: 'kfx-system',
    values: {
      networkPolicy: { apiServerCidrs: ['10.0.0.10/32'] },
      monitoring: { prometheusRule: { enabled: true } },
    },
  });
  const rule = rendered.find((object) => object.kind === 'PrometheusRule') as
    { spec: { groups: typeof groups } } | undefined;
  groups = rule?.spec.groups ?? [];
});

const description = (alert: string) =>
  groups.flatMap((group) => group.rules).find((rule) => rule.alert === alert)?.annotations
    .description;

describe("kfx-webhook's alerts", () => {
  it('each name the kfx doctor check to run', () => {
    const rules = groups.flatMap((group) => group.rules);
    expect(rules.map((rule) => rule.alert)).toEqual([
      'KfxWebhookFailingOpen',
      'KfxWebhookRefusing',
      'KfxNoProxyRangeGuessed',
      'KfxWebhookCertificateExpiring',
    ]);
    for (const rule of rules)
      expect(rule.annotations.description).toMatch(/`kfx doctor --check [a-z -]+`/);
  });

  it('fire when the webhook fails open or refuses (per reason), and not for a healthy webhook', async () => {
    const tests: PromtoolTest[] = [
      {
        interval: '1m',
        input_series: [
          {
            series: `kfx_admission_requests_total{${target}, webhook="proxy-injector", operation="CREATE", outcome="failed-open"}`,
            values: '0+3x30',
          },
          {
            series: `kfx_admission_requests_total{${target}, webhook="pvc-rewriter", operation="CREATE", outcome="patched"}`,
            values: '0+50x30',
          },
          {
            series: `kfx_admission_errors_total{${target}, webhook="proxy-injector", reason="handler-timeout"}`,
            values: '0+3x30',
          },
          {
            series: `kfx_admission_errors_total{${target}, webhook="proxy-injector", reason="body-too-large"}`,
            values: '0x30',
          },
        ],
        alert_rule_test: [
          // Not yet: the condition must last `for` (5m).
          { eval_time: '4m', alertname: 'KfxWebhookFailingOpen', exp_alerts: [] },
          {
            eval_time: '15m',
            alertname: 'KfxWebhookFailingOpen',
            exp_alerts: [
              {
                exp_labels: {
                  severity: 'warning',
                  namespace: 'kfx-system',
                  webhook: 'proxy-injector',
                },
                exp_annotations: {
                  summary: 'kfx-webhook admits objects unchanged after its handler failed',
                  description:
                    'proxy-injector in kfx-system failed open: Pods may lack the proxy variables, claims keep their class. Run `kfx doctor --check webhook injection`.',
                },
              },
            ],
          },
          {
            eval_time: '15m',
            alertname: 'KfxWebhookRefusing',
            exp_alerts: [
              {
                exp_labels: {
                  severity: 'warning',
                  namespace: 'kfx-system',
                  webhook: 'proxy-injector',
                  reason: 'handler-timeout',
                },
                exp_annotations: {
                  summary: 'kfx-webhook refuses or fails requests',
                  description:
                    'proxy-injector in kfx-system answers errors (handler-timeout). Run `kfx doctor --check webhook injection`.',
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

  it('fire for a guessed NO_PROXY range and a certificate near its end, and only then', async () => {
    // promtool's clock starts at 0: a certificate ending 10 days after it has 10 days left.
    const tenDays = 10 * 86400;
    const tests: PromtoolTest[] = [
      {
        interval: '1m',
        input_series: [
          {
            series: `kfx_proxy_injector_no_proxy_range_guessed{${target}, range="pod"}`,
            values: '1x30',
          },
          {
            series: `kfx_proxy_injector_no_proxy_range_guessed{${target}, range="service"}`,
            values: '0x30',
          },
          {
            series: `kfx_admission_tls_certificate_expiry_timestamp_seconds{${target}}`,
            values: `${tenDays}x120`,
          },
          {
            series: `kfx_admission_tls_certificate_expiry_timestamp_seconds{job="kfx-webhook", namespace="kfx-system", pod="kfx-webhook-1"}`,
            values: `${400 * 86400}x120`,
          },
        ],
        alert_rule_test: [
          { eval_time: '10m', alertname: 'KfxNoProxyRangeGuessed', exp_alerts: [] },
          {
            eval_time: '20m',
            alertname: 'KfxNoProxyRangeGuessed',
            exp_alerts: [
              {
                exp_labels: { severity: 'warning', namespace: 'kfx-system', range: 'pod' },
                exp_annotations: {
                  summary: 'NO_PROXY holds a guessed range',
                  description:
                    description('KfxNoProxyRangeGuessed')?.replace('{{ $labels.range }}', 'pod') ??
                    '',
                },
              },
            ],
          },
          {
            eval_time: '2h',
            alertname: 'KfxWebhookCertificateExpiring',
            exp_alerts: [
              {
                exp_labels: { severity: 'warning', namespace: 'kfx-system', pod: 'kfx-webhook-0' },
                exp_annotations: {
                  summary: "kfx-webhook's serving certificate is near its end",
                  description:
                    'The certificate kfx-webhook-0 serves ends in 9d 22h 0m 0s; once it has, every admission fails. Run `kfx doctor --check webhook`.',
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
