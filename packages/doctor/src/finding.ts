// What `diagnose` reports: findings, each about one object (or a group of objects found in the
// same state), with a severity, one sentence saying what is wrong, and the fix as a command or
// the value to set. The names here are the stable JSON of `kfx doctor -o json`
// (docs/doctor/report.md): fields are only ever added.

export const SEVERITIES = ['error', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** The checks, in the order they are reported. */
export const CHECKS = [
  'kubernetes',
  'webhook',
  'injection',
  'no-proxy',
  'rwx-claims',
  'profiles',
  'controller',
  'exposer',
] as const;
export type CheckName = (typeof CHECKS)[number];

/** What each check looks at, for help texts and the report. */
export const CHECK_TITLES: Readonly<Record<CheckName, string>> = {
  kubernetes: 'Kubernetes version inside the supported range; features missing on this minor',
  webhook:
    'kfx-webhook: its configuration, the certificate it serves against the caBundle, ready endpoints, failurePolicy, skipped namespaces',
  injection:
    'a dry-run Pod in each Profile namespace (and -n) gets the proxy variables through the real admission chain',
  'no-proxy':
    "NO_PROXY against the cluster's service and pod ranges, the kubernetes Service, metadata endpoints and namespaces",
  'rwx-claims': 'a dry-run ReadWriteMany claim lands on a StorageClass that exists',
  profiles:
    'Profiles: not reconciled, stuck deleting, KFAM bindings, quota against LimitRange, Pod Security against Istio',
  controller: 'kfx-controller: a fresh leader Lease, Profiles waiting for room, maxProfiles',
  exposer: "kfx expose-api: the serving certificate's and the CA's days left",
};

export interface Finding {
  check: CheckName;
  /** A stable identifier of what was found, e.g. `webhook.ca-bundle-mismatch`. */
  code: string;
  severity: Severity;
  /** The object, as `Kind name` or `Kind namespace/name`; a group reads `3 Namespaces (a, b, c)`. */
  object: string;
  /** Every object of a group, as `Kind namespace/name`; absent for a single object. */
  objects?: string[] | undefined;
  /** What is wrong, in one sentence. */
  message: string;
  /** A command to run or the value to set; absent where there is nothing to do (info). */
  fix?: string | undefined;
}

/** `Kind name` or `Kind namespace/name`. */
export function objectName(kind: string, name: string, namespace?: string): string {
  return namespace ? `${kind} ${namespace}/${name}` : `${kind} ${name}`;
}

const SHOWN = 3;

/**
 * Findings that say the same thing (same check, code, severity, message and fix) about several
 * objects become one, naming them all in `objects`: 500 namespaces with the webhook down are one
 * line, not 500.
 */
export function groupFindings(findings: readonly Finding[]): Finding[] {
  const groups = new Map<string, { first: Finding; objects: string[] }>();
  for (const finding of findings) {
    const key = JSON.stringify([
      finding.check,
      finding.code,
      finding.severity,
      finding.message,
      finding.fix ?? '',
    ]);
    const group = groups.get(key);
    if (group) group.objects.push(...(finding.objects ?? [finding.object]));
    else groups.set(key, { first: finding, objects: [...(finding.objects ?? [finding.object])] });
  }
  return [...groups.values()].map(({ first, objects }) => {
    const unique = [...new Set(objects)];
    if (unique.length === 1) {
      const single: Finding = { ...first, object: unique[0] ?? first.object };
      delete single.objects;
      return single;
    }
    return { ...first, object: describeGroup(unique), objects: unique };
  });
}

/** `3 Namespaces (a, b, c)`, `12 Namespaces (a, b, c, …)`; mixed kinds read `12 objects (…)`. */
function describeGroup(objects: readonly string[]): string {
  const kinds = new Set(objects.map((object) => object.split(' ')[0] ?? ''));
  const [kind] = kinds;
  const names = objects.map((object) => object.slice(object.indexOf(' ') + 1));
  const shown = names.slice(0, SHOWN).join(', ') + (names.length > SHOWN ? ', …' : '');
  const plural = kinds.size === 1 && kind ? pluralOf(kind) : 'objects';
  return `${objects.length} ${plural} (${shown})`;
}

function pluralOf(kind: string): string {
  if (kind.endsWith('s')) return `${kind}es`;
  if (kind.endsWith('y')) return `${kind.slice(0, -1)}ies`;
  return `${kind}s`;
}

const ORDER: Readonly<Record<Severity, number>> = { error: 0, warning: 1, info: 2 };

/** Errors first, then warnings and notes; within a severity, in the order of CHECKS. */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  return [...findings].sort(
    (a, b) =>
      ORDER[a.severity] - ORDER[b.severity] || CHECKS.indexOf(a.check) - CHECKS.indexOf(b.check),
  );
}
