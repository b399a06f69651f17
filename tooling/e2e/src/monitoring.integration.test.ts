// The charts' dashboards and alerts read only metrics the apps really export: the built
// kfx-webhook (with both handlers and API access), kfx-controller (leader election and the
// proxy-injection audit on) and `kfx expose-api serve` run against a real control plane, their
// /metrics are read, and every metric a dashboard panel, a dashboard variable or an alert of
// the three charts names must be one of them. A renamed metric fails here, not in Grafana.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCertificateAuthority } from '@kfx/dev-certs';
import { freePort, startControlPlane, waitUntilHealthy, type ControlPlane } from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runApp, startApp, type RunningApp } from './apps.js';
import { CHARTS, findRendered, renderChart, type Rendered } from './helm.js';
import { exportedNames, labelValuesMetric, metricNames } from './promql-metrics.js';
import { startWebhookFromChart, type WebhookUnderTest } from './webhook-server.js';

const dir = mkdtempSync(join(tmpdir(), 'kfx-e2e-monitoring-'));
let env: ControlPlane;
let webhook: WebhookUnderTest | undefined;
const running: RunningApp[] = [];
const exported = new Map<string, Set<string>>();

async function scrape(url: string): Promise<Set<string>> {
  const response = await fetch(url);
  return exportedNames(await response.text());
}

beforeAll(async () => {
  env = await startControlPlane({ components: ['controller-manager'] });
  webhook = await startWebhookFromChart({
    kubeconfigPath: env.kubeconfigPath,
    dir: join(dir, 'webhook'),
    values: {
      proxyInjector: { config: { httpProxy: 'http://proxy.corp:3128' } },
      pvcRewriter: {
        config: { rules: [{ accessModes: ['ReadWriteMany'], storageClassName: 'nfs' }] },
      },
    },
  });
  const webhookPort = webhook.config.metricsPort as number;
  exported.set('webhook', await scrape(`http://127.0.0.1:${String(webhookPort)}/metrics`));

  // kfx-controller as the chart configures it, with leader election and the audit on.
  const objects = await renderChart(CHARTS.controller, {
    release: 'kfx-controller',
    namespace: 'default',
    values: { config: { proxyInjectionAudit: { enabled: true } } },
  });
  const config = (
    findRendered(objects, 'ConfigMap', 'kfx-controller') as Rendered & {
      data: Record<string, string>;
    }
  ).data['controller.yaml'];
  mkdirSync(join(dir, 'controller'));
  writeFileSync(join(dir, 'controller', 'controller.yaml'), config ?? '');
  const controllerPort = await freePort();
  const controller = startApp(
    '@kfx/controller-app',
    [
      '--config',
      join(dir, 'controller', 'controller.yaml'),
      '--kubeconfig',
      env.kubeconfigPath,
      '--namespace',
      'default',
      '--metrics-port',
      String(controllerPort),
    ],
    join(dir, 'controller', 'kfx-controller.log'),
  );
  running.push(controller);
  await waitUntilHealthy(controller, `http://127.0.0.1:${String(controllerPort)}/readyz`);
  exported.set('controller', await scrape(`http://127.0.0.1:${String(controllerPort)}/metrics`));

  // kfx expose-api serve in front of the test API server.
  const ca = createCertificateAuthority();
  const serving = ca.issue({ commonName: 'exposer', ipAddresses: ['127.0.0.1'] });
  for (const [file, text] of [
    ['tls.crt', serving.cert],
    ['tls.key', serving.key],
    ['api-ca.crt', env.caCert],
  ]) {
    writeFileSync(join(dir, file ?? ''), text ?? '');
  }
  const [port, metricsPort] = [await freePort(), await freePort()];
  const exposer = startApp(
    '@kfx/cli',
    [
      'expose-api',
      'serve',
      '--listen',
      `127.0.0.1:${String(port)}`,
      '--tls-cert',
      join(dir, 'tls.crt'),
      '--tls-key',
      join(dir, 'tls.key'),
      '--upstream',
      env.server,
      '--upstream-ca',
      join(dir, 'api-ca.crt'),
      '--metrics-listen',
      `127.0.0.1:${String(metricsPort)}`,
    ],
    join(dir, 'exposer.log'),
  );
  running.push(exposer);
  await waitUntilHealthy(exposer, `http://127.0.0.1:${String(metricsPort)}/readyz`);
  exported.set('exposer', await scrape(`http://127.0.0.1:${String(metricsPort)}/metrics`));
});

afterAll(async () => {
  for (const app of running) await app.stop();
  await webhook?.stop();
  await env.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Dashboard {
  templating: { list: { query?: string | { query?: string } }[] };
  panels: { title: string; targets: { expr: string }[] }[];
}

/** The dashboard and the alert expressions a chart renders with monitoring on. */
function monitoringOf(objects: readonly Rendered[]) {
  const configMap = objects.find(
    (object) => object.kind === 'ConfigMap' && (object.metadata?.name ?? '').endsWith('-dashboard'),
  ) as (Rendered & { data: Record<string, string> }) | undefined;
  const dashboard = JSON.parse(Object.values(configMap?.data ?? {})[0] ?? '{}') as Dashboard;
  const rule = objects.find((object) => object.kind === 'PrometheusRule') as
    (Rendered & { spec: { groups: { rules: { alert: string; expr: string }[] }[] } }) | undefined;
  const exprs = [
    ...dashboard.panels.flatMap((panel) =>
      panel.targets.map((target) => [panel.title, target.expr] as const),
    ),
    ...(rule?.spec.groups.flatMap((group) => group.rules.map((r) => [r.alert, r.expr] as const)) ??
      []),
  ];
  const variables = dashboard.templating.list.flatMap((variable) =>
    labelValuesMetric(
      typeof variable.query === 'string' ? variable.query : (variable.query?.query ?? ''),
    ),
  );
  return {
    exprs,
    variables,
    panels: dashboard.panels.length,
    alerts: rule ? rule.spec.groups[0]?.rules.length : 0,
  };
}

function unknownMetrics(app: string, objects: readonly Rendered[]) {
  const names = exported.get(app) ?? new Set<string>();
  const { exprs, variables, panels, alerts } = monitoringOf(objects);
  expect(panels, `${app}: dashboard panels`).toBeGreaterThan(5);
  expect(alerts, `${app}: alerts`).toBeGreaterThan(2);
  const referenced = [
    ...exprs.flatMap(([where, expr]) => metricNames(expr).map((name) => `${name} (${where})`)),
    ...variables.map((name) => `${name} (variable)`),
  ];
  expect(referenced.length).toBeGreaterThan(10);
  return referenced.filter((entry) => !names.has(entry.split(' ')[0] ?? ''));
}

const monitoringOn = {
  serviceMonitor: { enabled: true },
  prometheusRule: { enabled: true },
  dashboard: { enabled: true },
};

describe("the charts' dashboards and alerts", () => {
  it('read only metrics kfx-webhook exports', async () => {
    const objects = await renderChart(CHARTS.webhook, {
      release: 'kfx-webhook',
      namespace: 'kfx-system',
      values: { networkPolicy: { apiServerCidrs: ['10.0.0.10/32'] }, monitoring: monitoringOn },
    });
    expect(unknownMetrics('webhook', objects)).toEqual([]);
  });

  it('read only metrics kfx-controller exports', async () => {
    const objects = await renderChart(CHARTS.controller, {
      release: 'kfx-controller',
      namespace: 'kfx-system',
      values: { monitoring: monitoringOn },
    });
    expect(unknownMetrics('controller', objects)).toEqual([]);
  });

  it('read only metrics kfx expose-api exports', async () => {
    const chart = join(dir, 'exposer-chart');
    const rendered = await runApp('@kfx/cli', [
      'expose-api',
      'manifests',
      '--external-address',
      '203.0.113.10',
      '--format',
      'helm',
      '--output',
      chart,
    ]);
    expect(rendered.code, rendered.stderr).toBe(0);
    expect(readFileSync(join(chart, 'Chart.yaml'), 'utf8')).toContain('kfx-expose-api');
    const objects = await renderChart(chart, {
      release: 'kfx-expose-api',
      namespace: 'kfx-system',
      values: { monitoring: monitoringOn },
    });
    expect(unknownMetrics('exposer', objects)).toEqual([]);
  });
});
