// Whether a field manager's server-side-apply ownership matches a desired object exactly. The
// subset check alone is not enough: if an earlier apply set a label that the desired object no
// longer has, the live object still "contains" the desired one, yet an apply would remove the
// label. So the fields the manager owns (metadata.managedFields, FieldsV1) must be the fields
// it asks for, compared down to the first list (list items need schema merge keys).
import type { ManagedFieldsEntry } from '../client/resources.js';
import { isPlainObject } from './semantic-equal.js';

type Path = string[];
const keyOf = (path: Path) => path.join('\u0000');
const show = (path: Path) => path.join('.');

/** The manager's Apply entry on the main resource, if the manager ever applied the object. */
export function applyEntry(
  managedFields: readonly ManagedFieldsEntry[] | undefined,
  manager: string,
): ManagedFieldsEntry | undefined {
  return managedFields?.find(
    (entry) => entry.manager === manager && entry.operation === 'Apply' && !entry.subresource,
  );
}

/** Field paths of a FieldsV1 document, stopping at leaves and at lists. */
export function ownedLeaves(fieldsV1: unknown): Path[] {
  const leaves: Path[] = [];
  const walk = (node: unknown, path: Path) => {
    const keys = isPlainObject(node) ? Object.keys(node) : [];
    const fields = keys.filter((key) => key.startsWith('f:'));
    const listItems = keys.some((key) => /^[kvi]:/.test(key));
    if (fields.length === 0 || listItems) {
      if (path.length > 0) leaves.push(path);
      return;
    }
    for (const field of fields)
      walk((node as Record<string, unknown>)[field], [...path, field.slice(2)]);
  };
  walk(fieldsV1, []);
  return leaves;
}

/** Field paths a desired object sets: objects are walked, anything else is a leaf. */
export function desiredLeaves(fields: Record<string, unknown>): Path[] {
  const leaves: Path[] = [];
  const walk = (value: unknown, path: Path) => {
    if (isPlainObject(value) && Object.keys(value).length > 0) {
      for (const [key, child] of Object.entries(value)) {
        // null asks the server to drop the field: nothing to own.
        if (child !== null) walk(child, [...path, key]);
      }
    } else if (path.length > 0) {
      leaves.push(path);
    }
  };
  const { metadata, ...rest } = fields;
  walk(rest, []);
  if (isPlainObject(metadata)) {
    // Name and namespace identify the object; managedFields never lists them.
    for (const [key, child] of Object.entries(metadata)) {
      if (key !== 'name' && key !== 'namespace' && child !== null) walk(child, ['metadata', key]);
    }
  }
  return leaves;
}

/**
 * Undefined when the owned fields are exactly the desired ones; otherwise the first field that
 * is owned but no longer desired, or desired but not yet owned.
 */
export function ownershipDifference(owned: Path[], desired: Path[]): string | undefined {
  const ownedKeys = new Set(owned.map(keyOf));
  const desiredPrefixes = new Set<string>();
  for (const path of desired) {
    for (let i = 1; i <= path.length; i++) desiredPrefixes.add(keyOf(path.slice(0, i)));
  }
  for (const path of owned) {
    if (!desiredPrefixes.has(keyOf(path))) return `${show(path)} is owned but no longer desired`;
  }
  for (const path of desired) {
    let covered = false;
    for (let i = 1; i <= path.length && !covered; i++)
      covered = ownedKeys.has(keyOf(path.slice(0, i)));
    if (!covered) return `${show(path)} is desired but not owned`;
  }
  return undefined;
}
