// The kfx-controller config file: which reconcilers run and how, and on which Profiles (both
// validated by @kfx/profile-reconcilers), plus the controller's own knobs. Read and validated at
// start; every problem is reported with its key, and the process stops before touching the
// cluster.
import { dirname, resolve } from 'node:path';
import {
  DEFAULT_PROTECTED_NAMESPACES,
  DEFAULT_RECONCILERS,
  enableBuiltInReconcilers,
  NAMESPACE_PATTERN,
  parseProfileSelector,
  type EnabledReconciler,
  type ProfileSelector,
} from '@kfx/profile-reconcilers';
import { ConfigError, describeIssues, readConfigFile } from '@kfx/kube-runtime/serving';
import { z } from 'zod';

const seconds = (fallback: number) => z.number().int().positive().default(fallback);

const appSchema = z.strictObject({
  /** Reconciler name → its settings (validated by the reconciler). */
  reconcilers: z.unknown().optional(),
  /** The Profiles this controller reconciles (validated by @kfx/profile-reconcilers). */
  profileSelector: z.unknown().optional(),
  /** What a Profile may raise: Pod Security levels, quotas, network policies, cloud identities. */
  ceilings: z.unknown().optional(),
  /**
   * kfx replaces the upstream Kubeflow profile controller: it handles that controller's
   * finalizer on deletion. Default: true with the namespace reconciler, else false.
   */
  replacesUpstream: z.boolean().optional(),
  workers: z.number().int().min(1).max(64).default(8),
  /** Profiles reconciled at most (the newest wait); default what the heap holds. */
  maxProfiles: z.number().int().positive().optional(),
  resyncSeconds: seconds(600),
  fieldManager: z.string().min(1).max(128).default('kfx-controller'),
  /** Namespaces no Profile may use (kube-*, default and the controller's own always). */
  protectedNamespaces: z
    .array(z.string().regex(NAMESPACE_PATTERN, 'expected a namespace name or a pattern with *'))
    .default([...DEFAULT_PROTECTED_NAMESPACES]),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
  /** Finds Pods admitted without the proxy-injector (its fail-open window); off by default. */
  proxyInjectionAudit: z
    .strictObject({
      enabled: z.boolean().default(false),
      /** The webhook's exclusions besides kube-system and the controller's own namespace. */
      excludeNamespaces: z
        .array(z.string().regex(NAMESPACE_PATTERN, 'expected a namespace name'))
        .default([]),
      /** The webhook's excludeContainers, when it sets its own; default the webhook's default. */
      excludeContainers: z.array(z.string().min(1, 'expected a container name')).optional(),
      /** Pods whose envFrom ConfigMaps are read at the same time. */
      configMapReaders: z.number().int().min(1).max(16).default(2),
    })
    .prefault({}),
  leaderElection: z
    .strictObject({
      leaseName: z.string().min(1).default('kfx-controller'),
      leaseDurationSeconds: seconds(15),
      renewDeadlineSeconds: seconds(10),
      retryPeriodSeconds: seconds(2),
    })
    .refine((l) => l.renewDeadlineSeconds < l.leaseDurationSeconds, {
      message: 'renewDeadlineSeconds must be less than leaseDurationSeconds',
    })
    .refine((l) => l.retryPeriodSeconds < l.renewDeadlineSeconds, {
      message: 'retryPeriodSeconds must be less than renewDeadlineSeconds',
    })
    .prefault({}),
});

type AppSettings = Omit<z.infer<typeof appSchema>, 'reconcilers' | 'profileSelector' | 'ceilings'>;

export interface ControllerConfig extends AppSettings {
  reconcilers: EnabledReconciler[];
  /** Undefined: every Profile. */
  profileSelector: ProfileSelector | undefined;
  /** Where the config came from, for the start-up log. */
  source: string;
}

/** Validates a parsed config document; `baseDir` anchors relative template paths. */
export function configFrom(document: unknown, baseDir: string, source: string): ControllerConfig {
  const parsed = appSchema.safeParse(document ?? {});
  const problems: string[] = [];
  if (!parsed.success) {
    problems.push(...describeIssues(parsed.error.issues));
    if (parsed.error.issues.some((i) => i.code === 'unrecognized_keys' && i.path.length === 0)) {
      problems.push(`(the top-level keys are ${Object.keys(appSchema.shape).join(', ')})`);
    }
  }
  let reconcilers: EnabledReconciler[] = [];
  let profileSelector: ProfileSelector | undefined;
  const raw = document as
    { reconcilers?: unknown; profileSelector?: unknown; ceilings?: unknown } | null | undefined;
  try {
    // The ceilings are checked here too (errors name `ceilings.<key>`), and given to every
    // reconciler.
    reconcilers = enableBuiltInReconcilers(raw?.reconcilers ?? DEFAULT_RECONCILERS, {
      baseDir,
      ceilings: raw?.ceilings,
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }
  try {
    profileSelector = parseProfileSelector(raw?.profileSelector);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  // The validated sections replace the raw ones.
  const settings: Partial<typeof parsed.data> = { ...parsed.data };
  delete settings.ceilings;
  return { ...(settings as AppSettings), reconcilers, profileSelector, source };
}

/** Reads a YAML config file; without a file, the documented defaults. */
export function loadConfig(file: string | undefined): ControllerConfig {
  if (file === undefined)
    return configFrom({}, process.cwd(), 'built-in defaults (quotas, limitrange)');
  const path = resolve(file);
  return configFrom(readConfigFile(path), dirname(path), path);
}
