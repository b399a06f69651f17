// Where kfx-webhook is: the MutatingWebhookConfigurations holding its webhooks (by their names,
// whatever the release is called), the Service they call, the Deployment behind it, its ready
// endpoints, and its configuration file (the ConfigMap the Deployment mounts). What the other
// checks need to say why a namespace gets no proxy and which value fixes it.
import { matchesLabelSelector, resources, type KubeClient } from '@kfx/kube-runtime/client';
import { parseProxyInjectorConfig, type ProxyInjectorConfig } from '@kfx/proxy-injector';
import { parse } from 'yaml';
import type { Cluster } from './cluster.js';
import type {
  Deployment,
  EndpointSlice,
  MutatingWebhook,
  MutatingWebhookConfiguration,
  Service,
} from './objects.js';

export const PROXY_INJECTOR_WEBHOOK = 'proxy-injector.kfx.dev';
const PVC_REWRITER_WEBHOOK = 'pvc-rewriter.kfx.dev';

export interface HelmRelease {
  name: string;
  namespace: string;
}

export interface KfxWebhook {
  /** The MutatingWebhookConfiguration's name. */
  configuration: string;
  proxyInjector: MutatingWebhook | undefined;
  pvcRewriter: MutatingWebhook | undefined;
  /** The Service the webhooks call (from the proxy injector's clientConfig, else the rewriter's). */
  service: { namespace: string; name: string; port: number } | undefined;
  /** Or the URL they call. */
  url: string | undefined;
  deployment: Deployment | undefined;
  /** Ready and all endpoints of the Service; undefined for a URL. */
  endpoints: { ready: number; total: number } | undefined;
  /** The kfx-webhook configuration file, when it could be read from the Deployment's ConfigMap. */
  config: Record<string, unknown> | undefined;
  /** Its proxyInjector section as the webhook parses it; undefined without one. */
  proxyInjectorConfig: ProxyInjectorConfig | undefined;
  /** Why the configuration could not be read or parsed. */
  configProblem: string | undefined;
  helmRelease: HelmRelease | undefined;
  /** cert-manager's cainjector writes the caBundle (`namespace/certificate`). */
  certManagerInjectFrom: string | undefined;
}

/** The Helm release an object belongs to, from Helm's own annotations. */
function helmReleaseOf(object: {
  metadata?: { annotations?: Record<string, string> | undefined } | undefined;
}): HelmRelease | undefined {
  const annotations = object.metadata?.annotations ?? {};
  const name = annotations['meta.helm.sh/release-name'];
  const namespace = annotations['meta.helm.sh/release-namespace'];
  return name && namespace ? { name, namespace } : undefined;
}

/** The Deployment of `namespace` whose Pods the selector picks. */
function deploymentFor(
  deployments: readonly Deployment[],
  namespace: string,
  selector: Record<string, string> | undefined,
): Deployment | undefined {
  if (!selector || Object.keys(selector).length === 0) return undefined;
  return deployments.find(
    (deployment) =>
      deployment.metadata?.namespace === namespace &&
      matchesLabelSelector(
        { matchLabels: selector },
        deployment.spec?.template?.metadata?.labels ?? {},
      ),
  );
}

function endpointsOf(slices: readonly EndpointSlice[], namespace: string, service: string) {
  let ready = 0;
  let total = 0;
  for (const slice of slices) {
    if (slice.metadata?.namespace !== namespace) continue;
    if (slice.metadata.labels?.['kubernetes.io/service-name'] !== service) continue;
    for (const endpoint of slice.endpoints ?? []) {
      total += 1;
      // An endpoint without conditions.ready is ready (the field's documented default).
      if (endpoint.conditions?.ready !== false) ready += 1;
    }
  }
  return { ready, total };
}

/** The configuration file among the Deployment's ConfigMaps: a YAML mapping with a kfx section. */
async function readConfig(
  cluster: Cluster,
  deployment: Deployment,
): Promise<{ config?: Record<string, unknown>; problem?: string }> {
  const namespace = deployment.metadata?.namespace ?? '';
  for (const volume of deployment.spec?.template?.spec?.volumes ?? []) {
    const name = volume.configMap?.name;
    if (!name) continue;
    const configMap = await cluster.configMap(namespace, name);
    for (const [key, text] of Object.entries(configMap?.data ?? {})) {
      if (!/\.ya?ml$/.test(key)) continue;
      let document: unknown;
      try {
        document = parse(text);
      } catch {
        return { problem: `ConfigMap ${namespace}/${name} key ${key} is not valid YAML` };
      }
      if (document && typeof document === 'object' && !Array.isArray(document)) {
        const config = document as Record<string, unknown>;
        if ('proxyInjector' in config || 'pvcRewriter' in config || 'tls' in config) {
          return { config };
        }
      }
    }
  }
  return { problem: `no kfx-webhook configuration among the ConfigMaps ${namespace} mounts` };
}

async function serviceOf(
  client: KubeClient,
  namespace: string,
  name: string,
  signal: AbortSignal | undefined,
) {
  try {
    return await client.get<Service>(resources.services, name, {
      namespace,
      ...(signal ? { signal } : {}),
    });
  } catch {
    return undefined;
  }
}

async function describe(
  cluster: Cluster,
  configuration: MutatingWebhookConfiguration,
): Promise<KfxWebhook> {
  const hooks = configuration.webhooks ?? [];
  const proxyInjector = hooks.find((hook) => hook.name === PROXY_INJECTOR_WEBHOOK);
  const pvcRewriter = hooks.find((hook) => hook.name === PVC_REWRITER_WEBHOOK);
  const clientConfig = (proxyInjector ?? pvcRewriter)?.clientConfig;
  const ref = clientConfig?.service;
  const service = ref
    ? { namespace: ref.namespace, name: ref.name, port: ref.port ?? 443 }
    : undefined;
  let deployment: Deployment | undefined;
  let endpoints: KfxWebhook['endpoints'];
  let config: Record<string, unknown> | undefined;
  let proxyInjectorConfig: ProxyInjectorConfig | undefined;
  let configProblem: string | undefined;
  if (service) {
    const [object, deployments, slices] = await Promise.all([
      serviceOf(cluster.client, service.namespace, service.name, cluster.signal),
      cluster.deployments(),
      cluster.endpointSlices(),
    ]);
    deployment = deploymentFor(deployments, service.namespace, object?.spec?.selector);
    endpoints = endpointsOf(slices, service.namespace, service.name);
    if (deployment) {
      const read = await readConfig(cluster, deployment);
      config = read.config;
      configProblem = read.problem;
    } else {
      configProblem = `no Deployment in ${service.namespace} backs Service ${service.name}`;
    }
  } else {
    configProblem = 'the webhooks call a URL: the configuration file cannot be found from here';
  }
  if (config?.proxyInjector !== undefined) {
    try {
      proxyInjectorConfig = parseProxyInjectorConfig(config.proxyInjector);
    } catch (error) {
      configProblem = `its proxyInjector section does not parse: ${(error as Error).message}`;
    }
  }
  return {
    configuration: configuration.metadata?.name ?? '',
    proxyInjector,
    pvcRewriter,
    service,
    url: clientConfig?.url,
    deployment,
    endpoints,
    config,
    proxyInjectorConfig,
    configProblem,
    helmRelease: helmReleaseOf(configuration),
    certManagerInjectFrom: configuration.metadata?.annotations?.['cert-manager.io/inject-ca-from'],
  };
}

/** Every configuration holding kfx's webhooks (usually one). */
export function kfxWebhooks(cluster: Cluster): Promise<KfxWebhook[]> {
  return cluster.memo('kfx-webhooks', async () => {
    const configurations = (await cluster.webhookConfigurations()).filter((configuration) =>
      (configuration.webhooks ?? []).some(
        (hook) => hook.name === PROXY_INJECTOR_WEBHOOK || hook.name === PVC_REWRITER_WEBHOOK,
      ),
    );
    return Promise.all(configurations.map((configuration) => describe(cluster, configuration)));
  });
}

/** How to set a value of kfx-webhook: a helm upgrade of its release, or the file to edit. */
export function webhookValueFix(webhook: KfxWebhook, key: string, value: string): string {
  const release = webhook.helmRelease;
  if (release) {
    return `helm upgrade ${release.name} apps/webhook/chart -n ${release.namespace} --reuse-values --set '${key}=${value}'`;
  }
  const where = webhook.deployment
    ? `the configuration file of Deployment ${webhook.deployment.metadata?.namespace ?? ''}/${webhook.deployment.metadata?.name ?? ''}`
    : 'the kfx-webhook configuration';
  return `set ${key.replace(/^(proxyInjector|pvcRewriter)\.config\./, '$1.')} to ${value} in ${where}`;
}
