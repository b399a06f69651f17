// "Does the live object already hold everything the desired object says?" A subset check: the
// server adds defaults, status and other managers' fields, so only what `desired` names counts.
// Quantities compare by value, and a zero value the server drops (`false`, `0`, `''`, `[]`, `{}`)
// matches an absent field.
import { quantitiesEqual } from '../quantity.js';

/** Maps whose values are resource quantities (ResourceQuota, LimitRange, containers, PVCs). */
const QUANTITY_MAPS = new Set([
  'hard',
  'used',
  'limits',
  'requests',
  'capacity',
  'allocatable',
  'default',
  'defaultRequest',
  'max',
  'min',
  'maxLimitRequestRatio',
]);
const QUANTITY_FIELDS = new Set(['sizeLimit']);

/** Metadata the server owns; a desired object copied from a live one may carry them. */
const SERVER_METADATA = new Set([
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'selfLink',
]);

type Path = readonly string[];

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The fields of an object that apply compares: no status, no server-owned metadata. */
export function comparableFields(object: Record<string, unknown>): Record<string, unknown> {
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    if (key !== 'status' && key !== 'apiVersion' && key !== 'kind' && key !== 'metadata')
      rest[key] = value;
  }
  const metadata = object.metadata;
  if (!isPlainObject(metadata)) return rest;
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(metadata)) {
    if (!SERVER_METADATA.has(key)) kept[key] = value;
  }
  return { ...rest, metadata: kept };
}

/**
 * Undefined when `live` holds every field of `desired` with an equal value; otherwise where the
 * first difference is, e.g. `spec.hard.cpu: want "2", have "1"`.
 */
export function subsetDifference(
  desired: unknown,
  live: unknown,
  path: Path = [],
): string | undefined {
  if (desired === null)
    return live === null || live === undefined ? undefined : differ(path, desired, live);
  if (Array.isArray(desired)) {
    if (desired.length === 0 && (live === undefined || live === null)) return undefined;
    if (!Array.isArray(live) || live.length !== desired.length) return differ(path, desired, live);
    for (let i = 0; i < desired.length; i++) {
      const found = subsetDifference(desired[i], live[i], [...path, String(i)]);
      if (found) return found;
    }
    return undefined;
  }
  if (isPlainObject(desired)) {
    const keys = Object.keys(desired);
    if (keys.length === 0 && (live === undefined || live === null)) return undefined;
    if (!isPlainObject(live)) return differ(path, desired, live);
    for (const key of keys) {
      const found = subsetDifference(desired[key], live[key], [...path, key]);
      if (found) return found;
    }
    return undefined;
  }
  if (desired === live) return undefined;
  if (live === undefined && (desired === false || desired === 0 || desired === ''))
    return undefined;
  if (isQuantityPath(path) && isScalarQuantity(desired) && isScalarQuantity(live)) {
    if (quantitiesEqual(desired, live)) return undefined;
  }
  return differ(path, desired, live);
}

export function isQuantityPath(path: Path): boolean {
  const field = path.at(-1) ?? '';
  const parent = path.at(-2) ?? '';
  return QUANTITY_FIELDS.has(field) || QUANTITY_MAPS.has(parent);
}

export const isScalarQuantity = (value: unknown): value is string | number =>
  typeof value === 'string' || typeof value === 'number';

function differ(path: Path, desired: unknown, live: unknown): string {
  const show = (value: unknown) =>
    value === undefined ? 'nothing' : JSON.stringify(value).slice(0, 80);
  return `${path.join('.') || '(root)'}: want ${show(desired)}, have ${show(live)}`;
}
