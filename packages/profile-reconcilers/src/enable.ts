// Binding a reconciler to its part of the config file: validate with its schema (errors name
// the full key), prepare (read files, compile templates), and hide the config types behind
// the members the controller uses.
import { ConfigError, describeIssues } from '@kfx/kube-runtime/serving';
import { NO_CEILINGS, type Ceilings } from './ceilings.js';
import {
  EMPTY_VIEW,
  type EnabledReconciler,
  type PrepareEnv,
  type ProfileReconciler,
} from './reconciler.js';
import { TemplateError } from './templates/template-error.js';

export type Enabler = (raw: unknown, env: PrepareEnv, ceilings?: Ceilings) => EnabledReconciler;

/** `ceilings`: what a Profile may raise (validated by `ceilingsSchema`); default nothing. */
export function enableReconciler<Config, Prepared>(
  reconciler: ProfileReconciler<Config, Prepared>,
  raw: unknown,
  env: PrepareEnv,
  ceilings: Ceilings = NO_CEILINGS,
): EnabledReconciler {
  // `quotas:` with nothing after it is YAML null: the reconciler with its defaults.
  const parsed = reconciler.configSchema.safeParse(raw ?? undefined);
  if (!parsed.success) throw new ConfigError(describeIssues(parsed.error.issues, env.key));
  let prepared: Prepared;
  try {
    prepared = reconciler.prepare(parsed.data, env);
  } catch (error) {
    if (error instanceof TemplateError) throw new ConfigError([`${env.key}: ${error.message}`]);
    throw error;
  }
  return {
    name: reconciler.name,
    kinds: reconciler.kinds(prepared),
    reads: reconciler.reads?.(prepared) ?? [],
    namespaces: reconciler.namespaces?.(prepared) ?? [],
    requires: reconciler.requires?.(prepared) ?? [],
    namespaceLabelKeys: reconciler.namespaceLabelKeys?.(prepared) ?? [],
    createOnly: reconciler.createOnly ?? false,
    adopts: reconciler.adopts,
    desired: (profile, read = EMPTY_VIEW) =>
      reconciler.desired(profile, { config: prepared, read, ceilings }),
  };
}

export function enabler<Config, Prepared>(
  reconciler: ProfileReconciler<Config, Prepared>,
): Enabler {
  return (raw, env, ceilings) => enableReconciler(reconciler, raw, env, ceilings);
}
