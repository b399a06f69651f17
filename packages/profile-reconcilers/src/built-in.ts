// The reconcilers kfx ships, by the key that enables them under `reconcilers:`, in the order
// they run: the namespace first, since everything else lives in it.
import { ConfigError, describeIssues } from '@kfx/kube-runtime/serving';
import type { z } from 'zod';
import { ceilingsSchema } from './ceilings.js';
import { enabler, type Enabler } from './enable.js';
import type { EnabledReconciler, ProfileReconciler } from './reconciler.js';
import { limitRangeReconciler } from './reconcilers/limit-range.js';
import { namespaceReconciler } from './reconcilers/namespace.js';
import { networkPoliciesReconciler } from './reconcilers/network-policies.js';
import { profileQuotaReconciler } from './reconcilers/profile-quota.js';
import { proxyConfigReconciler } from './reconcilers/proxy-config.js';
import { quotasReconciler } from './reconcilers/quotas.js';
import { rbacReconciler } from './reconcilers/rbac.js';
import { secretsReconciler } from './reconcilers/secrets.js';
import { templatesReconciler } from './reconcilers/templates.js';

interface BuiltIn {
  name: string;
  enable: Enabler;
  configSchema: z.ZodType;
}

const builtIn = <Config, Prepared>(reconciler: ProfileReconciler<Config, Prepared>): BuiltIn => ({
  name: reconciler.name,
  enable: enabler(reconciler),
  configSchema: reconciler.configSchema,
});

const BUILT_IN: readonly BuiltIn[] = [
  builtIn(namespaceReconciler),
  builtIn(quotasReconciler),
  builtIn(profileQuotaReconciler),
  builtIn(limitRangeReconciler),
  builtIn(rbacReconciler),
  builtIn(networkPoliciesReconciler),
  builtIn(proxyConfigReconciler),
  builtIn(secretsReconciler),
  builtIn(templatesReconciler),
];

/**
 * The schema each built-in reconciler checks its settings with, by its key under `reconcilers:`,
 * in running order: what a chart's values schema is generated from.
 */
export const BUILT_IN_CONFIG_SCHEMAS: ReadonlyMap<string, z.ZodType> = new Map(
  BUILT_IN.map(({ name, configSchema }) => [name, configSchema]),
);

const BUILT_IN_NAMES: readonly string[] = BUILT_IN.map(({ name }) => name);

/** What runs when the config does not say: these two, with their documented defaults. */
export const DEFAULT_RECONCILERS: Readonly<Record<string, unknown>> = {
  quotas: {},
  limitrange: {},
};

export interface EnableOptions {
  /** Relative paths (template files) are relative to this folder. Default: the working directory. */
  baseDir?: string | undefined;
  /** The key of the mapping in the config file, for errors. Default `reconcilers`. */
  key?: string | undefined;
  /**
   * What a Profile may raise (`ceilingsSchema`: Pod Security levels, quotas, network policies,
   * cloud identities). Default: nothing beyond the configured values.
   */
  ceilings?: unknown;
  /** The key of the ceilings in the config file, for errors. Default `ceilings`. */
  ceilingsKey?: string | undefined;
}

/**
 * The built-in reconcilers a `reconcilers:` mapping enables (a key with `false` disables), each
 * configured, in their running order. Throws a ConfigError naming every bad key.
 */
export function enableBuiltInReconcilers(
  mapping: unknown = DEFAULT_RECONCILERS,
  options: EnableOptions = {},
): EnabledReconciler[] {
  const key = options.key ?? 'reconcilers';
  if (typeof mapping !== 'object' || mapping === null || Array.isArray(mapping)) {
    throw new ConfigError([
      `${key}: expected a mapping of reconciler names (${BUILT_IN_NAMES.join(', ')})`,
    ]);
  }
  const entries = mapping as Record<string, unknown>;
  const problems: string[] = [];
  const ceilings = ceilingsSchema.safeParse(options.ceilings ?? undefined);
  if (!ceilings.success) {
    problems.push(...describeIssues(ceilings.error.issues, options.ceilingsKey ?? 'ceilings'));
  }
  for (const name of Object.keys(entries)) {
    if (!BUILT_IN_NAMES.includes(name)) {
      problems.push(`${key}.${name}: unknown reconciler (known: ${BUILT_IN_NAMES.join(', ')})`);
    }
  }
  const enabled: EnabledReconciler[] = [];
  for (const { name, enable } of BUILT_IN) {
    if (!(name in entries) || entries[name] === false) continue;
    try {
      enabled.push(
        enable(
          entries[name],
          { baseDir: options.baseDir ?? process.cwd(), key: `${key}.${name}` },
          ceilings.data,
        ),
      );
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  if (enabled.length === 0) problems.push(`${key}: no reconciler is enabled`);
  if (problems.length > 0) throw new ConfigError(problems);
  return enabled;
}
