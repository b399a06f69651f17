// Which rule, if any, applies to a PersistentVolumeClaim. First match wins.

/** Stands for "the claim names no storageClassName" in `fromStorageClassNames`. */
export const UNSET_STORAGE_CLASS = '<unset>';

export interface RewriteRule {
  /** The claim matches when its accessModes include any of these, e.g. `['ReadWriteMany']`. */
  accessModes: readonly string[];
  /** Only claims on one of these classes (use `<unset>` for none). Absent: any class or none. */
  fromStorageClassNames?: readonly string[];
  /** The class the claim is rewritten to. */
  storageClassName: string;
}

export interface ClaimSpec {
  accessModes?: readonly string[];
  storageClassName?: string | null;
  volumeName?: string;
}

export function findRule(spec: ClaimSpec, rules: readonly RewriteRule[]): RewriteRule | undefined {
  const modes = spec.accessModes ?? [];
  const current = spec.storageClassName ?? UNSET_STORAGE_CLASS;
  return rules.find(
    (rule) =>
      rule.accessModes.some((m) => modes.includes(m)) &&
      (rule.fromStorageClassNames === undefined || rule.fromStorageClassNames.includes(current)),
  );
}
