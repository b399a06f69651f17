// Builds the RFC 6902 JSON Patch a mutating webhook answers with, from the object the apiserver
// sent and the object the handler returned, and proves that the patch turns one into the other
// before it leaves the process (the apiserver rejects a patch that does not apply).
import jsonPatch, { type Operation } from 'fast-json-patch';
import { cloneJson, sameJson } from './json-values.js';

export type { Operation as PatchOperation } from 'fast-json-patch';

export class InvalidPatchError extends Error {
  override readonly name = 'InvalidPatchError';
}

/** The operations from `original` to `mutated`, unchecked. */
export function diffObjects(original: object, mutated: unknown): Operation[] {
  if (typeof mutated !== 'object' || mutated === null || Array.isArray(mutated)) {
    throw new InvalidPatchError('the returned object is not a JSON object');
  }
  try {
    // compare() copies every value it puts in an operation through JSON, so a value JSON cannot
    // hold (a BigInt, a cycle) throws here rather than in the apiserver.
    return jsonPatch.compare(original, mutated);
  } catch (error) {
    throw new InvalidPatchError(`the returned object is not JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/**
 * The containers (objects or arrays) the operations write into, without those inside another one
 * in the list: `/spec/containers/0/env/6` → `/spec/containers/0/env`. Linear in the total length
 * of the paths: each parent looks its own ancestors up in a set, instead of being compared with
 * every other parent (a Pod with 20,000 containers made that take seconds).
 */
function touchedContainers(operations: readonly Operation[]): string[] {
  const parents = new Set<string>();
  for (const { path } of operations) parents.add(path.slice(0, Math.max(0, path.lastIndexOf('/'))));
  if (parents.has('')) return [''];
  const kept: string[] = [];
  for (const parent of parents) {
    let inside = false;
    for (let end = parent.lastIndexOf('/'); end > 0; end = parent.lastIndexOf('/', end - 1)) {
      if (parents.has(parent.slice(0, end))) {
        inside = true;
        break;
      }
    }
    if (!inside) kept.push(parent);
  }
  return kept;
}

/**
 * Applies `operations` to `target` in place and checks the result against `mutated`. compare()
 * found everything outside the containers the operations touch equal, so only those are read
 * again: a value that is not plain JSON (a BigInt, a class instance without toJSON) changes in
 * the copy compare() makes, and the check catches it there.
 */
export function verifyPatch(target: object, operations: Operation[], mutated: unknown): void {
  let applied: unknown;
  try {
    applied = jsonPatch.applyPatch(target, operations, false, true).newDocument;
  } catch (error) {
    throw new InvalidPatchError(
      `the computed patch does not apply to the original: ${(error as Error).message}`,
      { cause: error },
    );
  }
  for (const pointer of touchedContainers(operations)) {
    const at = (document: unknown) =>
      pointer === '' ? document : (jsonPatch.getValueByPointer(document, pointer) as unknown);
    if (!sameJson(at(applied), at(mutated))) {
      throw new InvalidPatchError(
        `the computed patch does not reproduce the returned object at ${pointer || '/'} (are all its values plain JSON?)`,
      );
    }
  }
}

/**
 * The operations that turn `original` (plain JSON, as parsed from the request) into `mutated`;
 * `[]` when nothing changed. `mutated` is read the way JSON.stringify reads it: an `undefined`
 * property is absent. Throws InvalidPatchError when no correct patch can be made.
 *
 * The diff is index-based for arrays: append to arrays, never insert in front, or every element
 * after the insertion point becomes a `replace`.
 */
export function buildPatch(original: object, mutated: unknown): Operation[] {
  const operations = diffObjects(original, mutated);
  if (operations.length > 0) verifyPatch(cloneJson(original), operations, mutated);
  return operations;
}

/** The `response.patch` field: base64 of the JSON text of the operations. */
export function encodePatch(operations: readonly Operation[]): string {
  return Buffer.from(JSON.stringify(operations)).toString('base64');
}
