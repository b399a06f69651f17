// The apiserver's consistency rules for a Container LimitRange item (min ≤ defaultRequest ≤
// default ≤ max; no overcommit of extended resources). Checked before applying so that one
// contradictory label is dropped and reported instead of getting the LimitRange rejected.
import { parseQuantity, type Quantity } from '@kfx/kube-runtime/controller';
import type { LimitSection } from './limit-labels.js';

export type LimitItem = Partial<Record<LimitSection, Record<string, string>>>;

/** Pairs that must be ordered (left ≤ right) for every resource both name. */
const ORDER: readonly [LimitSection, LimitSection][] = [
  ['min', 'max'],
  ['min', 'defaultRequest'],
  ['min', 'default'],
  ['defaultRequest', 'max'],
  ['default', 'max'],
  ['defaultRequest', 'default'],
];

const compare = (a: Quantity, b: Quantity): number => {
  const left = a.numerator * b.denominator;
  const right = b.numerator * a.denominator;
  return left < right ? -1 : left > right ? 1 : 0;
};

/** Extended resources (a domain other than kubernetes.io) and hugepages cannot be overcommitted. */
function overcommitAllowed(resource: string): boolean {
  if (resource.startsWith('hugepages-')) return false;
  const slash = resource.indexOf('/');
  return slash < 0 || resource.slice(0, slash).endsWith('kubernetes.io');
}

/** What makes the item invalid for `resource`, or undefined when it is consistent. */
export function limitItemProblem(item: LimitItem, resource: string): string | undefined {
  const value = (section: LimitSection) => {
    const text = item[section]?.[resource];
    return text === undefined ? undefined : { text, quantity: parseQuantity(text) };
  };
  for (const [low, high] of ORDER) {
    const a = value(low);
    const b = value(high);
    if (!a?.quantity || !b?.quantity) continue;
    if (compare(a.quantity, b.quantity) > 0) {
      return `${low} ${resource} ${a.text} would be above ${high} ${b.text}`;
    }
  }
  const request = value('defaultRequest');
  const limit = value('default');
  if (!overcommitAllowed(resource) && request?.quantity && limit?.quantity) {
    if (compare(request.quantity, limit.quantity) !== 0) {
      return `${resource} cannot be overcommitted: defaultRequest ${request.text} must equal default ${limit.text}`;
    }
  }
  return undefined;
}
