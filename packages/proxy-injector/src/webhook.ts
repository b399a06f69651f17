// The proxy injector as an admission-core webhook: Pods on CREATE, new ephemeral containers on
// `pods/ephemeralcontainers` updates. It fails open: a Pod is never refused because of the
// injector; admission-core admits it unchanged with a warning and counts the failure.
import type { V1Pod } from '@kubernetes/client-node';
import {
  defineMutatingWebhook,
  type MutatingRequest,
  type MutatingWebhook,
  type MutateResult,
  type Plain,
} from '@kfx/admission-core';
import type { KubeClient } from '@kfx/kube-runtime/client';
import type { Logger } from '@kfx/kube-runtime/serving';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import {
  caBundleStateOf,
  caBundleWarning,
  missingBundle,
  type CaBundleState,
} from './ca-bundle.js';
import { apiReadsOf } from './api-rules.js';
import type { ProxyInjectorConfig } from './config.js';
import { ClusterDiscovery } from './discovery/cluster-discovery.js';
import { guessReporter } from './discovery/guess-report.js';
import { envFromConfigMaps, envFromLookup, unreadEnvFrom, type EnvFromLookup } from './env-from.js';
import { createEnvFromReader } from './env-from-reader.js';
import { injectPodSpec, type InjectionScope } from './inject.js';
import { NamedConfigMaps } from './named-config-maps.js';
import { applyOverride, type NamespaceOverride } from './namespace-override.js';
import { NamespaceOverrides } from './namespace-overrides.js';
import { describeInjection, describeNoProxy, envFromWarnings } from './notes.js';
import { isMirrorPod, optedOut } from './opt-out.js';
import { markInjected } from './stamp.js';
import {
  planInjection,
  redactProxy,
  resolveProxySettings,
  type Environment,
  type InjectionPlan,
  type ProxySettings,
} from './settings.js';

type Pod = Plain<V1Pod>;

export const PROXY_INJECTOR_NAME = 'proxy-injector';
export const PROXY_INJECTOR_PATH = '/mutate/proxy-injector';

export interface ProxyInjectorOptions {
  /**
   * API access: the cluster's network (discover), envFrom ConfigMaps (readEnvFrom), the
   * per-namespace overrides (namespaceConfigMap) and CA bundles (caBundle).
   */
  client?: KubeClient | undefined;
  logger?: Logger | undefined;
  /** Where `kfx_proxy_injector_no_proxy_range_guessed` goes. Default: the client's registry. */
  registry?: Registry | undefined;
  /** Read when `fromEnvironment` is on. Default `process.env`. */
  environment?: Environment | undefined;
}

export interface ProxyInjectorWebhook extends MutatingWebhook<Pod> {
  /** The cluster-wide values Pods get now (before any namespace override). */
  readonly settings: ProxySettings;
  /** Starts the caches; resolves once they have synced. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Not ready until the caches have synced (or when a watch is down). */
  readiness(): { ok: boolean; reasons: string[] };
}

/** Whether the request is one the injector changes, and what it may touch. */
function injectionScope(request: MutatingRequest<Pod>): InjectionScope | undefined {
  if (request.kind.kind !== 'Pod') return undefined;
  if (request.operation === 'CREATE' && !request.subResource) return { operation: 'create' };
  if (request.operation === 'UPDATE' && request.subResource === 'ephemeralcontainers') {
    const before = request.oldObject?.spec?.ephemeralContainers ?? [];
    return { operation: 'ephemeral', existing: new Set(before.map((c) => c.name)) };
  }
  return undefined;
}

/** The API-backed parts of the injector, each present only when configured and possible. */
function caches(config: ProxyInjectorConfig, client: KubeClient | undefined, log: Logger) {
  const reads = apiReadsOf(config);
  if (!client) {
    const wanted = Object.entries(reads).flatMap(([key, on]) => (on ? [key] : []));
    if (wanted.length > 0) {
      log.warn(
        { off: wanted },
        `the webhook has no API access: ${wanted.join(', ')} ${wanted.length === 1 ? 'is' : 'are'} off`,
      );
    }
    return {};
  }
  const { caBundle, namespaceConfigMap } = config;
  return {
    overrides:
      reads.namespaceConfigMap && namespaceConfigMap !== undefined
        ? new NamespaceOverrides(client, namespaceConfigMap, log)
        : undefined,
    bundles:
      reads.caBundle && caBundle
        ? new NamedConfigMaps<CaBundleState>(client, caBundle.configMap, {
            logger: log,
            dropData: true,
            read: (configMap) => caBundleStateOf(configMap, caBundle),
          })
        : undefined,
    discovery: reads.discover ? new ClusterDiscovery(client, log) : undefined,
    readEnvFrom: reads.readEnvFrom
      ? createEnvFromReader(client, { ignore: namespaceConfigMap })
      : undefined,
  };
}

export function createProxyInjector(
  config: ProxyInjectorConfig,
  options: ProxyInjectorOptions = {},
): ProxyInjectorWebhook {
  const log = options.logger ?? pino({ name: 'kfx-proxy-injector', level: 'info' });
  const environment = options.environment ?? process.env;
  const { overrides, bundles, discovery, readEnvFrom } = caches(config, options.client, log);
  const reportGuesses = guessReporter(
    options.registry ?? options.client?.registry ?? new Registry(),
    log,
  );
  const emptyLookup = envFromLookup(new Map());
  const noEnvFrom = unreadEnvFrom(
    options.client ? 'readEnvFrom is off' : 'the webhook has no API access',
  );
  // The cluster settings follow discovery; plans are cached per (settings, override, bundle).
  let settings = resolveProxySettings(config, environment, discovery?.snapshot());
  let seen = discovery?.version;
  let started = false;
  let plans = new WeakMap<object, WeakMap<object, InjectionPlan>>();
  const NO_OVERRIDE = {};
  const NO_BUNDLE = {};
  const current = () => {
    if (discovery && discovery.version !== seen) {
      seen = discovery.version;
      const next = resolveProxySettings(config, environment, discovery.snapshot());
      if (next.noProxy.join(',') !== settings.noProxy.join(',')) {
        log.info({ notes: describeNoProxy(next) }, 'NO_PROXY follows the cluster');
      }
      settings = next;
      plans = new WeakMap();
      if (started) reportGuesses(settings);
    }
    return settings;
  };
  const planFor = (override: NamespaceOverride | undefined, bundle: CaBundleState | undefined) => {
    const cluster = current();
    let byOverride = plans.get(override ?? NO_OVERRIDE);
    if (!byOverride) plans.set(override ?? NO_OVERRIDE, (byOverride = new WeakMap()));
    let plan = byOverride.get(bundle ?? NO_BUNDLE);
    if (!plan) {
      const own = override ? applyOverride(cluster, override) : cluster;
      byOverride.set(bundle ?? NO_BUNDLE, (plan = planInjection(own, bundle)));
    }
    return plan;
  };
  // One object per namespace without a bundle ConfigMap, so that its plan is cached too.
  const missing = new Map<string, CaBundleState>();
  const bundleIn = (namespace: string): CaBundleState | undefined => {
    const { caBundle } = config;
    if (!caBundle || !bundles) return undefined;
    const found = bundles.get(namespace);
    if (found) return found;
    let none = missing.get(namespace);
    if (!none) missing.set(namespace, (none = missingBundle(namespace, caBundle)));
    return none;
  };
  log.info(
    {
      httpProxy: redactProxy(settings.httpProxy),
      httpsProxy: redactProxy(settings.httpsProxy),
      noProxy: settings.noProxy.join(','),
      namespaceConfigMap: overrides ? config.namespaceConfigMap : undefined,
      caBundle: bundles ? config.caBundle : undefined,
    },
    'proxy injector configured',
  );

  const webhook = defineMutatingWebhook<Pod>({
    name: PROXY_INJECTOR_NAME,
    path: PROXY_INJECTOR_PATH,
    failureMode: 'admit',
    mutate(request, context): MutateResult<Pod> | Promise<MutateResult<Pod>> {
      const pod = request.object;
      const spec = pod.spec;
      const scope = injectionScope(request);
      if (scope === undefined || !spec || optedOut(pod) || isMirrorPod(pod)) {
        return { allowed: true };
      }
      const namespace = request.namespace ?? pod.metadata?.namespace ?? '';
      const override = overrides?.get(namespace);
      const bundle = bundleIn(namespace);
      const plan = planFor(override, bundle);
      const finish = (lookup: EnvFromLookup): MutateResult<Pod> => {
        const reports = injectPodSpec(spec, plan, scope, 'spec', lookup);
        // Only at creation: a pods/ephemeralcontainers update may change nothing else.
        if (scope.operation === 'create') markInjected(pod);
        // context.log is made on first use, per request: only touch it when the line is wanted.
        if (log.isLevelEnabled('debug')) {
          context.log.debug({ notes: describeInjection(reports, plan) }, 'proxy injection');
        }
        const bundleWarning =
          plan.families.length > 0 && bundle ? caBundleWarning(bundle) : undefined;
        const warnings = [
          ...(override?.problems ?? []),
          ...(bundleWarning ? [bundleWarning] : []),
          ...envFromWarnings(reports),
        ];
        return warnings.length > 0 ? { allowed: true, warnings } : { allowed: true };
      };
      // Only a Pod that names ConfigMaps in envFrom waits for the API.
      const names = readEnvFrom && plan.families.length > 0 ? envFromConfigMaps(spec) : [];
      if (!readEnvFrom || names.length === 0) return finish(readEnvFrom ? emptyLookup : noEnvFrom);
      return readEnvFrom(namespace, names, context.signal).then(finish);
    },
  });
  const injector = Object.assign(webhook, {
    settings,
    async start() {
      await Promise.all([overrides?.start(), bundles?.start(), discovery?.start()]);
      // Guesses are reported once discovery has had its say, then each time they change.
      started = true;
      reportGuesses(current());
    },
    async stop() {
      await Promise.all([overrides?.stop(), bundles?.stop(), discovery?.stop()]);
    },
    readiness: () => {
      const parts = [overrides, bundles, discovery].flatMap((c) => (c ? [c.readiness()] : []));
      return { ok: parts.every((p) => p.ok), reasons: parts.flatMap((p) => p.reasons) };
    },
  });
  // The settings as they are now (they follow discovery), not as they were at creation.
  return Object.defineProperty(injector, 'settings', { get: current, enumerable: true });
}
