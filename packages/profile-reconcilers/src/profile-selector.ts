// Which Profiles a controller reconciles: a Kubernetes label selector (matchLabels and
// matchExpressions, as in metav1.LabelSelector), checked when the config is loaded and sent to
// the API server as the Profile watch's labelSelector, so a controller never sees the others.
import { labelSelectorQuery } from '@kfx/kube-runtime/client';
import { ConfigError, describeIssues } from '@kfx/kube-runtime/serving';
import { labelSelector, type LabelSelector } from './schemas.js';

/** Which Profiles a controller reconciles; `{}` (or none) selects every Profile. */
export type ProfileSelector = LabelSelector;

/**
 * Checks a `profileSelector` as written in a config file (undefined or null: every Profile) and
 * returns it. Throws a ConfigError naming each bad field under `key`, e.g.
 * `profileSelector.matchExpressions[0].values: Exists takes no values`.
 */
export function parseProfileSelector(
  raw: unknown,
  key = 'profileSelector',
): ProfileSelector | undefined {
  if (raw === undefined || raw === null) return undefined;
  const parsed = labelSelector.safeParse(raw);
  if (!parsed.success) throw new ConfigError(describeIssues(parsed.error.issues, key));
  return parsed.data;
}

/** The Profile watch's labelSelector query; undefined when the selector selects everything. */
export function profileSelectorQuery(selector: ProfileSelector | undefined): string | undefined {
  if (selector === undefined) return undefined;
  return labelSelectorQuery(selector) || undefined;
}
