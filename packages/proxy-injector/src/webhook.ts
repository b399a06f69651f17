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
import type { KubeClient, Logger } from '@kfx/kube-runtime';
import { pino } from 'pino';
import type { ProxyInjectorConfig } from './config.js';
import { injectPodSpec, type InjectionScope } from './inject.js';
import { applyOverride, type NamespaceOverride } from './namespace-override.js';
import { NamespaceOverrides } from './namespace-overrides.js';
import { describeInjection } from './notes.js';
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
  /** API access for the per-namespace override cache (`namespaceConfigMap`). */
  client?: KubeClient | undefined;
  logger?: Logger | undefined;
  /** Read when `fromEnvironment` is on. Default `process.env`. */
  environment?: Environment | undefined;
}

export interface ProxyInjectorWebhook extends MutatingWebhook<Pod> {
  /** The cluster-wide values Pods get (before any namespace override). */
  readonly settings: ProxySettings;
  /** Starts the override cache, if any; resolves once it has synced. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Not ready until the override cache has synced (or when its watch is down). */
  readiness(): { ok: boolean; reasons: string[] };
}

/** Whether the request is one the injector changes, and what it may touch. */
export function injectionScope(request: MutatingRequest<Pod>): InjectionScope | undefined {
  if (request.kind.kind !== 'Pod') return undefined;
  if (request.operation === 'CREATE' && !request.subResource) return { operation: 'create' };
  if (request.operation === 'UPDATE' && request.subResource === 'ephemeralcontainers') {
    const before = request.oldObject?.spec?.ephemeralContainers ?? [];
    return { operation: 'ephemeral', existing: new Set(before.map((c) => c.name)) };
  }
  return undefined;
}

export function createProxyInjector(
  config: ProxyInjectorConfig,
  options: ProxyInjectorOptions = {},
): ProxyInjectorWebhook {
  const log = options.logger ?? pino({ name: 'kfx-proxy-injector', level: 'info' });
  const settings = resolveProxySettings(config, options.environment ?? process.env);
  const clusterPlan = planInjection(settings);
  let overrides: NamespaceOverrides | undefined;
  if (config.namespaceConfigMap !== undefined) {
    if (options.client) {
      overrides = new NamespaceOverrides(options.client, config.namespaceConfigMap, log);
    } else {
      log.warn(
        { namespaceConfigMap: config.namespaceConfigMap },
        'namespaceConfigMap is set but the webhook has no API access: per-namespace overrides are off',
      );
    }
  }
  // Override objects are replaced on every change, so a plan cached against one stays right.
  const plans = new WeakMap<NamespaceOverride, InjectionPlan>();
  const planFor = (override: NamespaceOverride | undefined) => {
    if (override === undefined) return clusterPlan;
    let plan = plans.get(override);
    if (!plan) plans.set(override, (plan = planInjection(applyOverride(settings, override))));
    return plan;
  };
  log.info(
    {
      httpProxy: redactProxy(settings.httpProxy),
      httpsProxy: redactProxy(settings.httpsProxy),
      noProxy: settings.noProxy.join(','),
      namespaceConfigMap: overrides ? config.namespaceConfigMap : undefined,
    },
    'proxy injector configured',
  );

  const webhook = defineMutatingWebhook<Pod>({
    name: PROXY_INJECTOR_NAME,
    path: PROXY_INJECTOR_PATH,
    failureMode: 'admit',
    mutate(request, context): MutateResult<Pod> {
      const pod = request.object;
      const scope = injectionScope(request);
      if (scope === undefined || !pod.spec || optedOut(pod) || isMirrorPod(pod)) {
        return { allowed: true };
      }
      const override = overrides?.get(request.namespace ?? pod.metadata?.namespace ?? '');
      const plan = planFor(override);
      const reports = injectPodSpec(pod.spec, plan, scope);
      // Only at creation: a pods/ephemeralcontainers update may change nothing else.
      if (scope.operation === 'create') markInjected(pod);
      // context.log is made on first use, per request: only touch it when the line is wanted.
      if (log.isLevelEnabled('debug')) {
        context.log.debug({ notes: describeInjection(reports, plan) }, 'proxy injection');
      }
      const warnings = override?.problems ?? [];
      return warnings.length > 0 ? { allowed: true, warnings } : { allowed: true };
    },
  });
  return Object.assign(webhook, {
    settings,
    async start() {
      await overrides?.start();
    },
    async stop() {
      await overrides?.stop();
    },
    readiness: () => overrides?.readiness() ?? { ok: true, reasons: [] },
  });
}
