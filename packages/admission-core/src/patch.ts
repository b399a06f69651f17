// Builds the RFC 6902 JSON Patch a mutating webhook answers with, from the object the apiserver
// sent and the object the handler returned, and proves that the patch turns one into the other
// before it leaves the process (the apiserver rejects a patch that does not apply).
import jsonPatch, { type Operation } from 'fast-json-patch';

export type { Operation as PatchOperation } from 'fast-json-patch';

export class InvalidPatchError extends Error {
  override readonly name = 'InvalidPatchError';
}

// JSON.stringify is typed as always returning a string; it does not for undefined or functions.
function jsonText(value: unknown): string | undefined {
  return JSON.stringify(value);
}

/**
 * The JSON form of a value the handler returned: what the apiserver will see. Throws when the
 * value cannot be JSON (a BigInt, a cycle) or is not an object.
 */
function toJson(mutated: unknown): object {
  let text: string | undefined;
  try {
    text = jsonText(mutated);
  } catch (error) {
    throw new InvalidPatchError(`the returned object is not JSON: ${(error as Error).message}`);
  }
  const value: unknown = text === undefined ? undefined : JSON.parse(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidPatchError('the returned object is not a JSON object');
  }
  return value;
}

/**
 * The operations that turn `original` into `mutated`; `[]` when nothing changed. `original` must
 * be plain JSON (as parsed from the request). Values that JSON cannot hold in `mutated` are
 * treated the way JSON.stringify treats them (an `undefined` property is absent).
 *
 * The diff is index-based for arrays: append to arrays, never insert in front, or every element
 * after the insertion point becomes a `replace`.
 */
export function buildPatch(original: object, mutated: unknown): Operation[] {
  const target = toJson(mutated);
  const operations = jsonPatch.compare(original, target);
  if (operations.length === 0) return operations;
  // compare() deep-clones the values it puts into operations, so applying them to a copy of the
  // original and comparing with the target is an independent check.
  const copy = jsonPatch.deepClone(original) as object;
  let applied: unknown;
  try {
    applied = jsonPatch.applyPatch(copy, operations, true, true).newDocument;
  } catch (error) {
    throw new InvalidPatchError(
      `the computed patch does not apply to the original: ${(error as Error).message}`,
    );
  }
  if (!jsonPatch._areEquals(applied, target)) {
    throw new InvalidPatchError('the computed patch does not reproduce the returned object');
  }
  return operations;
}

/** The `response.patch` field: base64 of the JSON text of the operations. */
export function encodePatch(operations: readonly Operation[]): string {
  return Buffer.from(JSON.stringify(operations)).toString('base64');
}
