// From the validated configuration (and, with fromEnvironment, the webhook's own environment) to
// the proxy values a Pod gets, and from those to the list of variables to inject. Pure: the
// webhook, the offline preview and the tests all go through here.
import { planCaBundle, type CaBundleState, type CaPlan } from './ca-bundle.js';
import type { ProxyInjectorConfig } from './config.js';
import { ConfigError } from '@kfx/kube-runtime/exit';
import { clusterNoProxy, type NoProxyGuess } from './discovery/cluster-no-proxy.js';
import type { DiscoveredNetwork } from './discovery/network.js';
import { javaProxyOptions, type JavaOptions } from './java-options.js';
import { mergeNoProxyGroups, type NoProxyGroup } from './no-proxy.js';
import type { VariableFamily } from './variables.js';

export type Environment = Readonly<Record<string, string | undefined>>;

export interface ProxySettings {
  /** Undefined: HTTP_PROXY is not injected. */
  httpProxy: string | undefined;
  httpsProxy: string | undefined;
  /** Configured entries, then the environment's, then the cluster's; de-duplicated. */
  noProxy: readonly string[];
  /** The entries of `noProxy` by where they come from, in NO_PROXY order. */
  noProxySources: readonly NoProxyGroup[];
  /** What NO_PROXY assumed or left out (undiscovered ranges, too many nodes). */
  noProxyNotes: readonly string[];
  /** The ranges in NO_PROXY that are guesses (kubeadm's or flannel's defaults). */
  noProxyGuesses: readonly NoProxyGuess[];
  /** The proxy CA bundle to mount, when configured. */
  caBundle: ProxyInjectorConfig['caBundle'];
  nodeUseEnvProxy: boolean;
  javaToolOptions: boolean;
  excludeContainers: readonly string[];
}

export interface InjectionPlan {
  settings: ProxySettings;
  families: readonly VariableFamily[];
  /** Present when javaToolOptions is on and there is a proxy. */
  java: JavaOptions | undefined;
  /** Present when a proxy CA bundle is configured and usable in the namespace. */
  ca: CaPlan | undefined;
  excluded: ReadonlySet<string>;
}

/** `http://user:secret@proxy:3128` → `http://user:***@proxy:3128`, for logs and notes. */
export function redactProxy(url: string | undefined): string {
  if (url === undefined) return '(not set)';
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/]*):[^@/]*@/i, '$1:***@');
}

function fromEnv(environment: Environment, upper: string): string | undefined {
  const value = environment[upper] ?? environment[upper.toLowerCase()];
  const trimmed = value?.trim();
  return trimmed === '' ? undefined : trimmed;
}

function checkedEnvUrl(environment: Environment, upper: string): string | undefined {
  const value = fromEnv(environment, upper);
  if (value === undefined || URL.canParse(value)) return value;
  throw new ConfigError(
    [`proxyInjector.fromEnvironment: the webhook's ${upper} (${redactProxy(value)}) is not a URL`],
    'invalid proxyInjector configuration:',
  );
}

/**
 * The proxy values for Pods. With `fromEnvironment`, HTTP_PROXY/HTTPS_PROXY/NO_PROXY (either
 * case) of `environment` fill what the configuration leaves unset, and NO_PROXY entries add up.
 * `discovered` is what the webhook read from the cluster (nothing, offline).
 */
export function resolveProxySettings(
  config: ProxyInjectorConfig,
  environment: Environment = process.env,
  discovered: DiscoveredNetwork = {},
): ProxySettings {
  let { httpProxy, httpsProxy } = config;
  let environmentNoProxy: string[] = [];
  if (config.fromEnvironment) {
    httpProxy ??= checkedEnvUrl(environment, 'HTTP_PROXY');
    httpsProxy ??= checkedEnvUrl(environment, 'HTTPS_PROXY');
    environmentNoProxy = [fromEnv(environment, 'NO_PROXY') ?? ''];
    if (httpProxy === undefined && httpsProxy === undefined) {
      throw new ConfigError(
        [
          'proxyInjector: nothing to inject: httpProxy and httpsProxy are not set and the webhook process has neither HTTP_PROXY nor HTTPS_PROXY (fromEnvironment: true)',
        ],
        'invalid proxyInjector configuration:',
      );
    }
  }
  const cluster = clusterNoProxy(config, discovered);
  const { noProxy, sources } = mergeNoProxyGroups([
    { source: 'config (noProxy)', entries: config.noProxy },
    { source: "the webhook's NO_PROXY (fromEnvironment)", entries: environmentNoProxy },
    ...cluster.groups,
  ]);
  return {
    httpProxy,
    httpsProxy,
    noProxy,
    noProxySources: sources,
    noProxyNotes: cluster.notes,
    noProxyGuesses: cluster.guesses,
    caBundle: config.caBundle,
    nodeUseEnvProxy: config.nodeUseEnvProxy,
    javaToolOptions: config.javaToolOptions,
    excludeContainers: config.excludeContainers,
  };
}

function family(upper: string, value: string | undefined): VariableFamily[] {
  if (value === undefined) return [];
  const lower = upper.toLowerCase();
  return [
    {
      owners: [lower],
      variables: [
        { name: upper, value },
        { name: lower, value },
      ],
    },
  ];
}

/**
 * The variables to inject, in the order they are appended to `env`. `caBundle` is the state of
 * the namespace's CA bundle ConfigMap, when `caBundle` is configured.
 */
export function planInjection(settings: ProxySettings, caBundle?: CaBundleState): InjectionPlan {
  const { httpProxy, httpsProxy } = settings;
  const anyProxy = httpProxy !== undefined || httpsProxy !== undefined;
  const families: VariableFamily[] = anyProxy
    ? [
        ...family('HTTP_PROXY', httpProxy),
        ...family('HTTPS_PROXY', httpsProxy),
        ...family('NO_PROXY', settings.noProxy.join(',')),
      ]
    : [];
  if (anyProxy && settings.nodeUseEnvProxy) {
    families.push({
      owners: ['node_use_env_proxy'],
      variables: [{ name: 'NODE_USE_ENV_PROXY', value: '1' }],
    });
  }
  const java =
    anyProxy && settings.javaToolOptions
      ? javaProxyOptions(httpProxy, httpsProxy, settings.noProxy)
      : undefined;
  const ca =
    anyProxy && settings.caBundle && caBundle
      ? planCaBundle(settings.caBundle, caBundle)
      : undefined;
  return { settings, families, java, ca, excluded: new Set(settings.excludeContainers) };
}
