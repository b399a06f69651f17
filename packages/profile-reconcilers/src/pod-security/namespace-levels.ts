// The Pod Security of a profile namespace: the configured levels, what the Profile's labels
// `<prefix>/<mode>: <level>` change within the ceilings (tighten always, loosen only to a level
// `ceilings.podSecurity` allows), and how each is enforced. Pod Security Admission's labels do it
// where they can; where Istio sidecars are injected without Istio CNI, `baseline` cannot be
// enforced by PSA (istio-init adds NET_ADMIN and NET_RAW), so the namespace is labelled for the
// ValidatingAdmissionPolicy that enforces baseline with istio-init's exemption, and PSA keeps
// warning and auditing at baseline.
import {
  podSecurityAllowed,
  podSecurityLevelsFor,
  type Ceilings,
  type PodSecurityLevel,
} from '../ceilings.js';
import type { Profile } from '../profile.js';
import type { Problem } from '../reconciler.js';
import {
  BASELINE_POLICY_LABEL,
  BASELINE_POLICY_LABEL_VALUE,
  BASELINE_POLICY_NAME,
} from './baseline-policy.js';
import { ISTIO_PROXY_IMAGES_ANNOTATION } from './istio-init.js';

export const LEVELS = ['privileged', 'baseline', 'restricted'] as const;
const MODES = ['enforce', 'audit', 'warn'] as const;
type Mode = (typeof MODES)[number];
export type PodSecurity = Partial<Record<Mode, PodSecurityLevel | undefined>>;

const PSA_LABEL_PREFIX = 'pod-security.kubernetes.io';

export interface PodSecuritySettings {
  istioInjection: boolean;
  istioCni: boolean;
  podSecurity?: PodSecurity | undefined;
  podSecurityLabelPrefix: string;
  istioProxyImages: string[];
}

/** Sidecars with istio-init: PSA cannot enforce baseline, the policy does. */
export const sidecarsWithoutCni = (settings: PodSecuritySettings): boolean =>
  settings.istioInjection && !settings.istioCni;

/** The configured levels, or the default: enforce baseline (and warn and audit with sidecars). */
export function configuredPodSecurity(settings: PodSecuritySettings): PodSecurity {
  if (settings.podSecurity) return settings.podSecurity;
  if (sidecarsWithoutCni(settings)) {
    return { enforce: 'baseline', audit: 'baseline', warn: 'baseline' };
  }
  return { enforce: 'baseline' };
}

/** The Profile's labels `<prefix>/<mode>: <level>`, applied within the ceilings. */
export function requestedPodSecurity(
  profile: Profile,
  settings: PodSecuritySettings,
  ceilings: Ceilings,
  configured: PodSecurity,
  problems: Problem[],
): PodSecurity {
  const chosen: PodSecurity = {};
  const start = `${settings.podSecurityLabelPrefix}/`;
  const name = profile.metadata?.name ?? '';
  for (const [label, value] of Object.entries(profile.metadata?.labels ?? {})) {
    if (!label.startsWith(start)) continue;
    const mode = label.slice(start.length);
    if (
      !(MODES as readonly string[]).includes(mode) ||
      !(LEVELS as readonly string[]).includes(value)
    ) {
      problems.push({
        label,
        value,
        message: `label ${label}="${value}" ignored: expected ${start}<${MODES.join('|')}>: <${LEVELS.join('|')}>`,
      });
      continue;
    }
    const level = value as PodSecurityLevel;
    const was = configured[mode as Mode];
    if (!podSecurityAllowed(ceilings, name, level, was)) {
      const allowed = podSecurityLevelsFor(ceilings, name);
      problems.push({
        label,
        value,
        reason: 'CeilingExceeded',
        message: `label ${label}="${value}" not applied: it loosens ${mode} below the configured ${was ?? 'none'}, beyond the ceiling ceilings.podSecurity (levels a Profile may loosen to: ${allowed.join(', ') || 'none'}); ${mode} stays ${was ?? 'unset'}`,
      });
      continue;
    }
    chosen[mode as Mode] = level;
  }
  return chosen;
}

/** The namespace's labels and annotations that put `levels` in force. */
export function podSecurityMarks(
  levels: PodSecurity,
  settings: PodSecuritySettings,
): { labels: Record<string, string>; annotations: Record<string, string> } {
  const labels: Record<string, string> = {};
  const annotations: Record<string, string> = {};
  const byPolicy = levels.enforce === 'baseline' && sidecarsWithoutCni(settings);
  for (const [mode, level] of Object.entries(levels)) {
    if (level && !(byPolicy && mode === 'enforce')) labels[`${PSA_LABEL_PREFIX}/${mode}`] = level;
  }
  if (byPolicy) {
    labels[BASELINE_POLICY_LABEL] = BASELINE_POLICY_LABEL_VALUE;
    annotations[ISTIO_PROXY_IMAGES_ANNOTATION] = settings.istioProxyImages.join(',');
  }
  return { labels, annotations };
}

/** What a namespace's labels put in force, in words, for Events and logs. */
export function describePodSecurity(labels: Readonly<Record<string, string>> | undefined): string {
  const l = labels ?? {};
  const enforce =
    l[`${PSA_LABEL_PREFIX}/enforce`] ??
    (l[BASELINE_POLICY_LABEL] === BASELINE_POLICY_LABEL_VALUE
      ? `baseline (by ValidatingAdmissionPolicy ${BASELINE_POLICY_NAME})`
      : 'none');
  const rest = (['audit', 'warn'] as const)
    .map((mode) => `${mode} ${l[`${PSA_LABEL_PREFIX}/${mode}`] ?? 'none'}`)
    .join(', ');
  return `enforce ${enforce}, ${rest}`;
}

/** The labels describePodSecurity reads (what the controller's namespace cache keeps). */
export const POD_SECURITY_LABELS: readonly string[] = [
  ...MODES.map((mode) => `${PSA_LABEL_PREFIX}/${mode}`),
  BASELINE_POLICY_LABEL,
];

const ENFORCE_RANK: Record<string, number> = { privileged: 0, baseline: 1, restricted: 2 };

/** How strictly the labels enforce: -1 nothing, then privileged, baseline, restricted. */
export function enforcedRank(labels: Readonly<Record<string, string>> | undefined): number {
  const l = labels ?? {};
  const psa = ENFORCE_RANK[l[`${PSA_LABEL_PREFIX}/enforce`] ?? ''] ?? -1;
  const policy = l[BASELINE_POLICY_LABEL] === BASELINE_POLICY_LABEL_VALUE ? 1 : -1;
  return Math.max(psa, policy);
}
