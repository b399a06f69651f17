// kfx-controller as the chart configures it, but outside a cluster: the configuration file (and
// template files) the chart's ConfigMaps hold, laid out as the Pod mounts them, run by the built
// binary against the test apiserver with admin credentials and one replica (no Lease).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, waitUntilHealthy } from '@kfx/testenv';
import { startApp, type RunningApp } from './apps.js';
import { CHARTS, findRendered, renderChart, type Rendered } from './helm.js';

export interface ControllerUnderTest {
  app: RunningApp;
  /** The configuration file as the chart rendered it. */
  configText: string;
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
  mkdirSync(join(options.dir, 'templates'), { recursive: true });
  const templates = objects.find(
    (o) => o.kind === 'ConfigMap' && (o.metadata?.name ?? '').endsWith('-templates'),
  ) as ConfigMap | undefined;
  for (const [file, content] of Object.entries(templates?.data ?? {})) {
    writeFileSync(join(options.dir, 'templates', file), content);
  }
  const configFile = join(options.dir, 'controller.yaml');
  writeFileSync(configFile, configText);

  const port = await freePort();
  const app = startApp(
    '@kfx/controller-app',
    [
      '--config',
      configFile,
      '--kubeconfig',
      options.kubeconfigPath,
      '--metrics-port',
      String(port),
      '--no-leader-elect',
    ],
    join(options.dir, 'kfx-controller.log'),
  );
  try {
    await waitUntilHealthy(app, `http://127.0.0.1:${port}/readyz`);
  } catch (error) {
    await app.stop();
    throw error;
  }
  return { app, configText, stop: () => app.stop() };
}
