// Which webhooks kfx-webhook serves: one handler factory per configuration section. Each factory
// brings the schema of its section, builds its admission-core webhook from the parsed values and
// says which API rights those values need, so mounting a handler is one entry in HANDLERS.
import { defineMutatingWebhook, type Webhook } from '@kfx/admission-core';
import type { KubeClient } from '@kfx/kube-runtime/client';
import {
  createProxyInjector,
  PROXY_INJECTOR_NAME,
  proxyInjectorApiRules,
  proxyInjectorConfigSchema,
  type ProxyInjectorConfig,
} from '@kfx/proxy-injector';
import {
  createPvcRewriter,
  PVC_REWRITER_NAME,
  pvcRewriterApiRules,
  pvcRewriterConfigSchema,
  type PvcRewriterConfig,
} from '@kfx/pvc-rewriter';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { z } from 'zod';

export interface HandlerContext {
  logger: Logger;
  /** API access for the handlers' watched caches; absent outside a cluster without a kubeconfig. */
  client?: KubeClient | undefined;
  /** Where the handlers' own metrics go: the registry /metrics serves. */
  registry: Registry;
}

/** A ClusterRole rule (rbac.authorization.k8s.io/v1 PolicyRule). */
export interface ApiRule {
  apiGroups?: string[] | undefined;
  resources?: string[] | undefined;
  resourceNames?: string[] | undefined;
  verbs: string[];
}

export interface HandlerFactory<C = unknown> {
  /** The configuration section, e.g. `proxyInjector`. */
  section: string;
  /** Checks the section; the app prefixes the key paths of its errors with the section. */
  schema: z.ZodType<C>;
  /** Builds the webhook from the parsed section, or from nothing when the file has none. */
  create(config: C | undefined, context: HandlerContext): Webhook;
  /** The ClusterRole rules the webhook `create` builds from this section reads with; none without. */
  apiRules(config: C | undefined): ApiRule[];
}

/**
 * A route that admits everything unchanged, for a section the file leaves out: the cluster's
 * webhook configuration may still point at the path, and a 404 there would fail every Pod or
 * claim creation.
 */
function disabled(name: string, section: string, logger: Logger): Webhook {
  logger.info(
    { webhook: name },
    `no ${section} section in the configuration: /mutate/${name} admits everything unchanged`,
  );
  return defineMutatingWebhook({
    name,
    path: `/mutate/${name}`,
    failureMode: 'admit',
    mutate: () => ({ allowed: true }),
  });
}

const proxyInjector: HandlerFactory<ProxyInjectorConfig> = {
  section: 'proxyInjector',
  schema: proxyInjectorConfigSchema,
  create: (config, { logger, client, registry }) =>
    config
      ? createProxyInjector(config, { logger, client, registry })
      : disabled(PROXY_INJECTOR_NAME, 'proxyInjector', logger),
  apiRules: (config) => (config ? proxyInjectorApiRules(config) : []),
};

const pvcRewriter: HandlerFactory<PvcRewriterConfig> = {
  section: 'pvcRewriter',
  schema: pvcRewriterConfigSchema,
  create: (config, { logger, client, registry }) =>
    config
      ? createPvcRewriter(config, { logger, client, registry })
      : disabled(PVC_REWRITER_NAME, 'pvcRewriter', logger),
  apiRules: (config) => (config ? pvcRewriterApiRules(config) : []),
};

export const HANDLERS: readonly HandlerFactory[] = [proxyInjector, pvcRewriter];

/** The webhooks to serve, one per handler, built from their sections of the configuration. */
export function createWebhooks(
  sections: Record<string, unknown>,
  handlers: readonly HandlerFactory[],
  context: HandlerContext,
): Webhook[] {
  return handlers.map((handler) => handler.create(sections[handler.section], context));
}

/**
 * The ClusterRole rules kfx-webhook needs with these parsed sections: each handler's, in order
 * (the chart's ClusterRole is tested against them).
 */
export function apiRules(
  sections: Record<string, unknown>,
  handlers: readonly HandlerFactory[],
): ApiRule[] {
  return handlers.flatMap((handler) => handler.apiRules(sections[handler.section]));
}
