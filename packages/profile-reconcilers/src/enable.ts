// Binding a reconciler to its part of the config file: validate with its schema (errors name
// the full key), prepare (read files, compile templates), and hide the config types behind
// the members the controller uses.
import { ConfigError, describeIssues } from '@kfx/kube-runtime';
import {
  EMPTY_VIEW,
  type EnabledReconciler,
  type PrepareEnv,
  type ProfileReconciler,
} from './reconciler.js';
import { TemplateError } from './templates/template-error.js';

export type Enabler = (raw: unknown, env: PrepareEnv) => EnabledReconciler;

export function enableReconciler<Config, Prepared>(
  reconciler: ProfileReconciler<Config, Prepared>,
  raw: unknown,
  env: PrepareEnv,
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
    createOnly: reconciler.createOnly ?? false,
    adopts: reconciler.adopts,
    desired: (profile, read = EMPTY_VIEW) =>
      reconciler.desired(profile, { config: prepared, read }),
  };
}

export function enabler<Config, Prepared>(
  reconciler: ProfileReconciler<Config, Prepared>,
): Enabler {
  return (raw, env) => enableReconciler(reconciler, raw, env);
}
