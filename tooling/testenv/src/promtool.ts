// Prometheus' own rule unit tests (`promtool test rules`) for the alerting rules the charts ship:
// the rule groups as a PrometheusRule's spec holds them, and the test cases in promtool's format
// (input series, the alerts expected at given times), written to a scratch folder and run with
// the promtool `kfx-testenv binaries --all` built. Tests never build it (requireBinaries).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { requireBinaries } from './binaries.js';

/** One entry of promtool's `tests:` list. */
export interface PromtoolTest {
  interval?: string;
  input_series: { series: string; values: string }[];
  alert_rule_test?: {
    eval_time: string;
    alertname: string;
    exp_alerts: { exp_labels?: Record<string, string>; exp_annotations?: Record<string, string> }[];
  }[];
  promql_expr_test?: {
    expr: string;
    eval_time: string;
    exp_samples: { labels?: string; value: number }[];
  }[];
}

export interface PromtoolResult {
  code: number;
  /** promtool's stdout and stderr: SUCCESS, or each failed expectation with what it got. */
  output: string;
}

/** Runs `promtool test rules` on `groups` (a PrometheusRule's spec.groups) with `tests`. */
export async function promtoolTestRules(
  groups: unknown,
  tests: readonly PromtoolTest[],
): Promise<PromtoolResult> {
  const { promtool } = requireBinaries(['promtool']);
  const dir = mkdtempSync(join(tmpdir(), 'kfx-promtool-'));
  try {
    writeFileSync(join(dir, 'rules.yaml'), stringify({ groups }, { lineWidth: 0 }));
    writeFileSync(
      join(dir, 'tests.yaml'),
      stringify({ rule_files: ['rules.yaml'], evaluation_interval: '1m', tests }, { lineWidth: 0 }),
    );
    return await new Promise((resolve) => {
      execFile(promtool, ['test', 'rules', 'tests.yaml'], { cwd: dir }, (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, output: `${stdout}${stderr}` });
      });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
