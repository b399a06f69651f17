// The chart's alerts (monitoring.prometheusRule), tested by Prometheus itself: the rules the
// chart renders, series as kfx-controller exports them (the leader reports the Profiles' states;
// a standby reports none), and `promtool test rules` saying which alert fires when. Each
// alert's description names the `kfx doctor` check to run.
import { fileURLToPath } from 'node:url';
import { promtoolTestRules, renderChart, type PromtoolTest } from '@kfx/testenv';
import { beforeAll, describe, expect, it } from 'vitest';

const chart = fileURLToPath(new URL('../chart', import.meta.url));
const job = 'job="kfx-controller-metrics"';
const leader = `${job}, namespace="kfx-system", pod="kfx-controller-0"`;
const standby = `${job}, namespace="kfx-system", pod="kfx-controller-1"`;
let groups: { name: string; rules: { alert: string; annotations: Record<string, string> }[] }[];

beforeAll(async () => {
  const rendered = await renderChart(chart, {
    release: 'kfx-controller',
    namespace: 'kfx-system',
    values: { monitoring: { prometheusRule: { enabled: true } } },
  });
  const rule = rendered.find((object) => object.kind === 'PrometheusRule') as
    { spec: { groups: typeof groups } } | undefined;
  groups = rule?.spec.groups ?? [];
});

const states = (pod: string, counts: Record<string, string>) =>
  Object.entries(counts).map(([state, values]) => ({
    series: `kfx_profile_controller_profiles{${pod}, state="${state}"}`,
    values,
  }));

describe("kfx-controller's alerts", () => {
  it('each name the kfx doctor check to run', () => {
    const rules = groups.flatMap((group) => group.rules);
    expect(rules.map((rule) => rule.alert)).toEqual([
      'KfxPodsWithoutProxy',
      'KfxProfilesNotReconciled',
      'KfxControllerNearCapacity',
      'KfxControllerNoLeader',
    ]);
    for (const rule of rules)
      expect(rule.annotations.description).toMatch(/`kfx doctor --check [a-z -]+`/);
  });

  it('fire for Pods without the proxy, Profiles not reconciled for 10 minutes, near maxProfiles, no leader', async () => {
    const tests: PromtoolTest[] = [
      {
        interval: '1m',
        input_series: [
          // The audit's gauge carries the audited Pod's namespace (the ServiceMonitor honours it).
          {
            series: `kfx_proxy_injector_uninjected_pods{${job}, namespace="team-a", pod="kfx-controller-0"}`,
            values: '0 0 2x30',
          },
          {
            series: `kfx_proxy_injector_uninjected_pods{${job}, namespace="team-b", pod="kfx-controller-0"}`,
            values: '0x30',
          },
          ...states(leader, {
            reconciled: '95x30',
            failed: '0 0 3x30',
            waiting: '0x30',
            refused: '0x30',
            warnings: '0x30',
          }),
          ...states(standby, {
            reconciled: '0x30',
            failed: '0x30',
            waiting: '0x30',
            refused: '0x30',
            warnings: '0x30',
          }),
          { series: `kfx_profile_controller_capacity_profiles{${leader}}`, values: '100x30' },
          { series: `kfx_profile_controller_capacity_profiles{${standby}}`, values: '100x30' },
          {
            series: `kfx_leader_election_leader{${leader}, lease="kfx-system/kfx-controller"}`,
            values: '1 1 1 0x30',
          },
          {
            series: `kfx_leader_election_leader{${standby}, lease="kfx-system/kfx-controller"}`,
            values: '0x30',
          },
        ],
        alert_rule_test: [
          {
            eval_time: '10m',
            alertname: 'KfxPodsWithoutProxy',
            exp_alerts: [
              {
                exp_labels: { severity: 'warning', namespace: 'team-a' },
                exp_annotations: {
                  summary: 'Pods run without the proxy variables',
                  description:
                    '2 Pods in team-a were created without the proxy variables (admitted while kfx-webhook could not answer). Run `kfx doctor --check webhook injection`, then recreate them.',
                },
              },
            ],
          },
          // Failed since minute 2: not yet after 10 minutes, at 12.
          { eval_time: '11m', alertname: 'KfxProfilesNotReconciled', exp_alerts: [] },
          {
            eval_time: '13m',
            alertname: 'KfxProfilesNotReconciled',
            exp_alerts: [
              {
                exp_labels: {
                  severity: 'warning',
                  namespace: 'kfx-system',
                  pod: 'kfx-controller-0',
                },
                exp_annotations: {
                  summary: 'Profiles have not been reconciled for 10 minutes',
                  description:
                    '3 Profiles are failed, waiting or refused. Run `kfx doctor --check profiles controller` (kubectl describe profile says why for each).',
                },
              },
            ],
          },
          {
            eval_time: '20m',
            alertname: 'KfxControllerNearCapacity',
            exp_alerts: [
              {
                exp_labels: {
                  severity: 'warning',
                  namespace: 'kfx-system',
                  pod: 'kfx-controller-0',
                },
                exp_annotations: {
                  summary: 'kfx-controller is near maxProfiles',
                  description:
                    'The Profiles are 98% of maxProfiles; past it, new ones wait with ControllerFull. Run `kfx doctor --check controller`.',
                },
              },
            ],
          },
          {
            eval_time: '10m',
            alertname: 'KfxControllerNoLeader',
            exp_alerts: [
              {
                exp_labels: { severity: 'critical', namespace: 'kfx-system' },
                exp_annotations: {
                  summary: 'no kfx-controller replica leads',
                  description:
                    'No replica in kfx-system holds the Lease: no Profile is reconciled. Run `kfx doctor --check controller`.',
                },
              },
            ],
          },
        ],
      },
      {
        // A healthy release: the leader reconciled everything, far from its capacity.
        interval: '1m',
        input_series: [
          ...states(leader, {
            reconciled: '40x30',
            failed: '0x30',
            waiting: '0x30',
            refused: '0x30',
            warnings: '2x30',
          }),
          { series: `kfx_profile_controller_capacity_profiles{${leader}}`, values: '100x30' },
          {
            series: `kfx_leader_election_leader{${leader}, lease="kfx-system/kfx-controller"}`,
            values: '1x30',
          },
        ],
        alert_rule_test: [
          'KfxProfilesNotReconciled',
          'KfxControllerNearCapacity',
          'KfxControllerNoLeader',
        ].map((alertname) => ({ eval_time: '25m', alertname, exp_alerts: [] })),
      },
    ];
    const result = await promtoolTestRules(groups, tests);
    expect(result.output).toContain('SUCCESS');
    expect(result.code, result.output).toBe(0);
  });
});
