// Kubernetes label selectors (matchLabels + matchExpressions), evaluated the way the apiserver
// does: every requirement must hold; an empty selector matches everything.

/** metav1.LabelSelector; optional fields may also be `undefined` (as zod outputs them). */
export interface LabelSelector {
  matchLabels?: Readonly<Record<string, string>> | undefined;
  matchExpressions?:
    | readonly { key: string; operator: string; values?: readonly string[] | undefined }[]
    | undefined;
}

export type Labels = Readonly<Record<string, string>>;

export function matchesSelector(selector: LabelSelector, labels: Labels): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[key] !== value) return false;
  }
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, key);
    const value = labels[key];
    switch (operator) {
      case 'In':
        if (!has || value === undefined || !values.includes(value)) return false;
        break;
      case 'NotIn':
        if (has && value !== undefined && values.includes(value)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false; // unknown operators are rejected by the config schema; never match
    }
  }
  return true;
}

/** `team=a,tier in (gold,silver)`: the selector in kubectl's syntax, for notes and warnings. */
export function formatSelector(selector: LabelSelector): string {
  const parts = Object.entries(selector.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    if (operator === 'Exists') parts.push(key);
    else if (operator === 'DoesNotExist') parts.push(`!${key}`);
    else
      parts.push(
        `${key} ${operator.toLowerCase() === 'in' ? 'in' : 'notin'} (${values.join(',')})`,
      );
  }
  return parts.length > 0 ? parts.join(',') : '(everything)';
}
