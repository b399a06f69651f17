// Kubernetes label selectors (metav1.LabelSelector: matchLabels + matchExpressions) and label
// syntax, written once: evaluated the way the apiserver evaluates them (every requirement must
// hold; an empty selector matches everything) and printed in the API's query syntax.

/** metav1.LabelSelector; optional fields may also be `undefined` (as zod outputs them). */
export interface LabelSelector {
  matchLabels?: Readonly<Record<string, string>> | undefined;
  matchExpressions?:
    | readonly { key: string; operator: string; values?: readonly string[] | undefined }[]
    | undefined;
}

export type Labels = Readonly<Record<string, string>>;

const DNS_SUBDOMAIN =
  /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_NAME = /^(?=.{1,63}$)[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^((?=.{1,63}$)[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

/** A label key: `name` or `prefix/name`, the prefix a DNS subdomain, the name at most 63 characters. */
export function isLabelKey(key: string): boolean {
  const slash = key.lastIndexOf('/');
  if (slash < 0) return LABEL_NAME.test(key);
  return DNS_SUBDOMAIN.test(key.slice(0, slash)) && LABEL_NAME.test(key.slice(slash + 1));
}

/** A label value: empty, or at most 63 letters, digits, `-`, `_`, `.`, alphanumeric at both ends. */
export function isLabelValue(value: string): boolean {
  return LABEL_VALUE.test(value);
}

/** Whether `labels` satisfy `selector`; an unknown operator never matches. */
export function matchesLabelSelector(selector: LabelSelector, labels: Labels): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[key] !== value) return false;
  }
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    const value = Object.hasOwn(labels, key) ? labels[key] : undefined;
    switch (operator) {
      case 'In':
        if (value === undefined || !values.includes(value)) return false;
        break;
      case 'NotIn':
        if (value !== undefined && values.includes(value)) return false;
        break;
      case 'Exists':
        if (value === undefined) return false;
        break;
      case 'DoesNotExist':
        if (value !== undefined) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/**
 * The selector in the API's (and kubectl's) query syntax, `team=a,tier in (gold,silver),!legacy`:
 * a list or watch's `labelSelector`, and how notes and warnings show it. `''` selects everything.
 */
export function labelSelectorQuery(selector: LabelSelector): string {
  const parts = Object.entries(selector.matchLabels ?? {}).map(([key, value]) => `${key}=${value}`);
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    if (operator === 'Exists') parts.push(key);
    else if (operator === 'DoesNotExist') parts.push(`!${key}`);
    else parts.push(`${key} ${operator === 'In' ? 'in' : 'notin'} (${values.join(',')})`);
  }
  return parts.join(',');
}
