// kfx-controller as the chart configures it, but outside a cluster: the configuration file (and
// template files) the chart's ConfigMaps hold, laid out as the Pod mounts them, run by the built
// binary against the test apiserver with one replica (no Lease): rendered from values with admin
// credentials, or read from an installed release and run as its ServiceAccount (its RBAC).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, waitUntilHealthy } from '@kfx/testenv';
import { startApp, type RunningApp } from './apps.js';
import { getJson, listJson } from './cluster.js';
import { CHARTS, findRendered, renderChart, type Rendered } from './helm.js';

export interface ControllerUnderTest {
  app: RunningApp;
  /** The configuration file as the chart rendered it. */
  configText: string;
  /** Where /healthz, /readyz and /metrics answer. */
  metricsUrl: string;
  stop(): Promise<void>;
}

type ConfigMap = Rendered & { data?: Record<string, string> };

/** Renders the controller chart with `values` and runs kfx-controller with what it renders. */
export async function startControllerFromChart(options: {
  values: string | object;
  kubeconfigPath: string;
  dir: string;
}): Promise<ControllerUnderTest> {
  const objects = await renderChart(CHARTS.controller, {
    release: 'kfx-controller',
    namespace: 'kfx-system',
    values: options.values,
  });
  const configText = (findRendered(objects, 'ConfigMap', 'kfx-controller') as ConfigMap).data?.[
    'controller.yaml'
  ];
  if (configText === undefined) throw new Error('the chart ConfigMap has no controller.yaml');
  const templates = objects.find(
    (o) => o.kind === 'ConfigMap' && (o.metadata?.name ?? '').endsWith('-templates'),
  ) as ConfigMap | undefined;
  return runController(configText, templates?.data ?? {}, options.kubeconfigPath, options.dir);
}

/**
 * Runs kfx-controller with what an installed release holds (its ConfigMaps `<release>` and
 * `<release>-templates`), as `identityKubeconfigPath` (the release's ServiceAccount).
 */
export async function startControllerFromRelease(options: {
  release: string;
  namespace: string;
  /** Admin credentials, to read the release's ConfigMaps. */
  kubeconfigPath: string;
  /** The identity the controller runs as. */
  identityKubeconfigPath: string;
  dir: string;
}): Promise<ControllerUnderTest> {
  const config = await getJson<ConfigMap>(
    options.kubeconfigPath,
    ['configmap', options.release],
    options.namespace,
  );
  const configText = config.data?.['controller.yaml'];
  if (configText === undefined) {
    throw new Error(`ConfigMap ${options.namespace}/${options.release} has no controller.yaml`);
  }
  const templates = (
    await listJson<ConfigMap>(options.kubeconfigPath, ['configmaps'], options.namespace)
  ).find((o) => o.metadata?.name === `${options.release}-templates`);
  return runController(
    configText,
    templates?.data ?? {},
    options.identityKubeconfigPath,
    options.dir,
  );
}

/** The configuration and template files laid out as the Pod mounts them, and the binary on them. */
async function runController(
  configText: string,
  templates: Record<string, string>,
  kubeconfigPath: string,
  dir: string,
): Promise<ControllerUnderTest> {
  mkdirSync(join(dir, 'templates'), { recursive: true });
  for (const [file, content] of Object.entries(templates)) {
    writeFileSync(join(dir, 'templates', file), content);
  }
  const configFile = join(dir, 'controller.yaml');
  writeFileSync(configFile, configText);

  const port = await freePort();
  const app = startApp(
    '@kfx/controller-app',
    [
      '--config',
      configFile,
      '--kubeconfig',
      kubeconfigPath,
      '--metrics-port',
      String(port),
      '--no-leader-elect',
    ],
    join(dir, 'kfx-controller.log'),
  );
  const metricsUrl = `http://127.0.0.1:${port}`;
  try {
    await waitUntilHealthy(app, `${metricsUrl}/readyz`);
  } catch (error) {
    await app.stop();
    throw error;
  }
  return { app, configText, metricsUrl, stop: () => app.stop() };
}
