// kfx-webhook as the chart configures it, but outside a cluster: the configuration file the
// chart's ConfigMap holds, with the ports and certificate of this machine, and the chart's own
// MutatingWebhookConfiguration pointed at it by URL, so the real apiserver calls the real binary
// with exactly the rules, selectors and failure policy the chart installs.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCertificateAuthority } from '@kfx/dev-certs';
import { applyManifests, freePort, runKubectl, waitUntilHealthy } from '@kfx/testenv';
import { parse, stringify } from 'yaml';
import { startApp, type RunningApp } from './apps.js';
import { CHARTS, findRendered, renderChart, type Rendered } from './helm.js';

export interface WebhookUnderTest {
  app: RunningApp;
  /** The configuration file the binary runs with (the chart's, ports and TLS changed). */
  config: Record<string, unknown>;
  /** Deletes the webhook configuration and stops the binary. */
  stop(): Promise<void>;
}

interface WebhookEntry {
  clientConfig: { service?: { path?: string }; url?: string; caBundle?: string };
}

/**
 * Renders the webhook chart with `values` (a guide's values file), runs kfx-webhook with the
 * configuration it renders, and registers the chart's MutatingWebhookConfiguration with the
 * apiserver of `kubeconfigPath`, by URL. `dir` receives the certificate, config and log.
 */
export async function startWebhookFromChart(options: {
  values: string | object;
  kubeconfigPath: string;
  dir: string;
  namespace?: string;
}): Promise<WebhookUnderTest> {
  const namespace = options.namespace ?? 'kfx-system';
  const objects = await renderChart(CHARTS.webhook, {
    release: 'kfx-webhook',
    namespace,
    values: options.values,
  });
  const configMap = findRendered(objects, 'ConfigMap') as Rendered & {
    data: Record<string, string>;
  };
  const config = parse(configMap.data['config.yaml'] ?? '') as Record<string, unknown>;

  mkdirSync(options.dir, { recursive: true });
  const ca = createCertificateAuthority();
  const tls = ca.issue({ commonName: 'kfx-webhook', ipAddresses: ['127.0.0.1'] });
  writeFileSync(join(options.dir, 'tls.crt'), tls.cert);
  writeFileSync(join(options.dir, 'tls.key'), tls.key, { mode: 0o600 });
  const [port, metricsPort] = [await freePort(), await freePort()];
  config.port = port;
  config.metricsPort = metricsPort;
  config.tls = { certFile: join(options.dir, 'tls.crt'), keyFile: join(options.dir, 'tls.key') };
  const configFile = join(options.dir, 'config.yaml');
  writeFileSync(configFile, stringify(config));

  const app = startApp(
    '@kfx/webhook-app',
    ['--config', configFile, '--kubeconfig', options.kubeconfigPath],
    join(options.dir, 'kfx-webhook.log'),
  );
  const base = `https://127.0.0.1:${port}`;
  try {
    await waitUntilHealthy(app, `${base}/readyz`, { ca: ca.cert });
  } catch (error) {
    await app.stop();
    throw error;
  }

  const configuration = findRendered(objects, 'MutatingWebhookConfiguration') as Rendered & {
    metadata: { annotations?: Record<string, string> };
    webhooks: WebhookEntry[];
  };
  delete configuration.metadata.annotations;
  for (const webhook of configuration.webhooks) {
    const path = webhook.clientConfig.service?.path ?? '';
    webhook.clientConfig = {
      url: `${base}${path}`,
      caBundle: Buffer.from(ca.cert).toString('base64'),
    };
  }
  await applyManifests(options.kubeconfigPath, [configuration]);
  const name = configuration.metadata.name ?? '';
  return {
    app,
    config,
    async stop() {
      await runKubectl(options.kubeconfigPath, [
        'delete',
        'mutatingwebhookconfiguration',
        name,
        '--ignore-not-found',
      ]);
      await app.stop();
    },
  };
}
