// kfx-webhook as the chart configures it, but outside a cluster: the configuration file the
// chart's ConfigMap holds, with the ports and certificate of this machine, and the chart's own
// MutatingWebhookConfiguration pointed at it by URL, so the real apiserver calls the real binary
// with exactly the rules, selectors and failure policy the chart installs (testenv's
// serveWebhook, on a development certificate for 127.0.0.1).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, serveWebhook, waitUntilHealthy } from '@kfx/testenv';
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
 * apiserver of `kubeconfigPath`, by URL. `dir` receives the config and log.
 */
export async function startWebhookFromChart(options: {
  values: string | object;
  kubeconfigPath: string;
  dir: string;
  namespace?: string;
}): Promise<WebhookUnderTest> {
  const namespace = options.namespace ?? 'kfx-system';
  // The chart's NetworkPolicy renders only with the apiserver's addresses (a guide's values say
  // so themselves); the apiserver here calls from 127.0.0.1.
  const values =
    typeof options.values === 'string'
      ? options.values
      : { networkPolicy: { apiServerCidrs: ['127.0.0.1/32'] }, ...options.values };
  const objects = await renderChart(CHARTS.webhook, { release: 'kfx-webhook', namespace, values });
  const configMap = findRendered(objects, 'ConfigMap') as Rendered & {
    data: Record<string, string>;
  };
  const config = parse(configMap.data['config.yaml'] ?? '') as Record<string, unknown>;

  mkdirSync(options.dir, { recursive: true });
  const configuration = findRendered(objects, 'MutatingWebhookConfiguration') as Rendered & {
    metadata: { annotations?: Record<string, string> };
    webhooks: WebhookEntry[];
  };
  delete configuration.metadata.annotations;
  let app: RunningApp | undefined;
  const served = await serveWebhook({
    kubeconfig: options.kubeconfigPath,
    async serve(tls) {
      const [port, metricsPort] = [await freePort(), await freePort()];
      config.port = port;
      config.metricsPort = metricsPort;
      config.tls = { certFile: tls.certFile, keyFile: tls.keyFile };
      const configFile = join(options.dir, 'config.yaml');
      writeFileSync(configFile, stringify(config));
      const started = startApp(
        '@kfx/webhook-app',
        ['--config', configFile, '--kubeconfig', options.kubeconfigPath],
        join(options.dir, 'kfx-webhook.log'),
      );
      app = started;
      try {
        await waitUntilHealthy(started, `https://127.0.0.1:${port}/readyz`, { ca: tls.caCert });
      } catch (error) {
        await started.stop();
        throw error;
      }
      return { port, stop: () => started.stop() };
    },
    configurations({ url, caCert }) {
      for (const webhook of configuration.webhooks) {
        const path = webhook.clientConfig.service?.path ?? '';
        webhook.clientConfig = {
          url: `${url}${path}`,
          caBundle: Buffer.from(caCert).toString('base64'),
        };
      }
      return [configuration];
    },
  });
  if (!app) throw new Error('kfx-webhook did not start');
  return { app, config, stop: () => served.stop() };
}
