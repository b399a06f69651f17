// Builds the RFC 6902 JSON Patch a mutating webhook answers with, from the object the apiserver
// sent and the object the handler returned, and checks that the patch turns one into the other
// before it leaves the process (the apiserver rejects a patch that does not apply). The check
// costs what the patch touches, not what the object holds.
import { messageOf } from '@kfx/kube-runtime/serving';
import { diffJson, InvalidPatchError, type PatchOperation } from './json-diff.js';
import { cloneJson, jsonOf, sameJson } from './json-values.js';

export { InvalidPatchError, type PatchOperation } from './json-diff.js';

type Json = Record<string, unknown>;

/** `/a/b~1c/0` → `['a', 'b/c', '0']`. */
function tokensOf(pointer: string): string[] {
  if (pointer === '') return [];
  const tokens = pointer.slice(1).split('/');
  if (!pointer.includes('~')) return tokens;
  return tokens.map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
}

function doesNotApply(operation: PatchOperation, problem: string): InvalidPatchError {
  return new InvalidPatchError(
    `the computed patch does not apply to the original: ${operation.op} ${operation.path}: ${problem}`,
  );
}

/** The index a token names in an array of `length` (`length` itself: the end), or NaN. */
function arrayIndex(token: string, length: number): number {
  const index = Number(token);
  // Number() also reads '', ' 1', '1e0', '0x1' and '01'; a pointer's index is digits alone.
  return Number.isInteger(index) && index <= length && String(index) === token ? index : Number.NaN;
}

/** Applies one add, replace or remove to `document` in place, as the apiserver would. */
function applyOperation(document: object, operation: PatchOperation): void {
  const tokens = tokensOf(operation.path);
  const last = tokens.pop();
  if (last === undefined) throw doesNotApply(operation, 'the whole object');
  let parent: unknown = document;
  for (const token of tokens) {
    parent = typeof parent === 'object' && parent !== null ? (parent as Json)[token] : undefined;
    if (typeof parent !== 'object' || parent === null || token === '__proto__') {
      throw doesNotApply(operation, `no object or array at ${token}`);
    }
  }
  if (last === '__proto__') throw doesNotApply(operation, 'writes __proto__');
  if (Array.isArray(parent)) {
    const index = arrayIndex(last, parent.length);
    const present = index < parent.length;
    if (Number.isNaN(index) || (operation.op !== 'add' && !present)) {
      throw doesNotApply(operation, `no index ${last} in an array of ${parent.length}`);
    }
    if (operation.op === 'add') parent.splice(index, 0, operation.value);
    else if (operation.op === 'replace') parent[index] = operation.value;
    else parent.splice(index, 1);
    return;
  }
  const object = parent as Json;
  if (operation.op !== 'add' && !Object.hasOwn(object, last)) {
    throw doesNotApply(operation, `no key ${JSON.stringify(last)}`);
  }
  if (operation.op === 'remove') Reflect.deleteProperty(object, last);
  else object[last] = operation.value;
}

/**
 * The containers (objects or arrays) the operations write into, without those inside another one
 * in the list: `/spec/containers/0/env/6` → `/spec/containers/0/env`. Linear in the total length
 * of the paths: each parent looks its own ancestors up in a set, instead of being compared with
 * every other parent (a Pod with 20,000 containers made that take seconds).
 */
function touchedContainers(operations: readonly PatchOperation[]): string[] {
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

/** The value at `pointer`, read as JSON.stringify would read it (toJSON() honoured). */
function valueAt(document: unknown, pointer: string): unknown {
  let value = jsonOf(document);
  for (const token of tokensOf(pointer)) {
    value =
      typeof value === 'object' && value !== null ? jsonOf((value as Json)[token]) : undefined;
  }
  return value;
}

/**
 * Applies `operations` to `target` in place and checks the result against `mutated`. The diff
 * found everything outside the containers the operations touch equal, so only those are read
 * again: what the patch writes is checked, at the cost of what it writes.
 */
export function verifyPatch(
  target: object,
  operations: readonly PatchOperation[],
  mutated: unknown,
): void {
  for (const operation of operations) applyOperation(target, operation);
  for (const pointer of touchedContainers(operations)) {
    if (!sameJson(valueAt(target, pointer), valueAt(mutated, pointer))) {
      throw new InvalidPatchError(
        `the computed patch does not reproduce the returned object at ${pointer || '/'} (are all its values plain JSON?)`,
      );
    }
  }
}

/**
 * The default of maxPatchBytes: 1 MiB of JSON, 1.33 MiB in base64. A notebook Pod's proxy
 * settings take about 3 KiB; the apiserver takes requests of up to 3 MiB and etcd objects of up
 * to 1.5 MiB, so a patch past this would make an object that can hardly be stored.
 */
export const DEFAULT_MAX_PATCH_BYTES = 1024 * 1024;

/** A patch whose JSON text would pass maxPatchBytes: it is not written out, let alone sent. */
export class PatchTooLargeError extends Error {
  override readonly name = 'PatchTooLargeError';
}

// Patches of up to this many operations are written in one piece (every patch a sane Pod gets):
// larger ones piece by piece, so that one past the limit stops being written near the limit
// instead of first taking its whole size (a Pod with 66,000 containers: 56 MB of text).
const PIECE = 256;

function stringify(operations: readonly PatchOperation[]): string {
  try {
    return JSON.stringify(operations);
  } catch (error) {
    // A toJSON() that throws, or one that answers differently the second time.
    throw new InvalidPatchError(`the returned object is not JSON: ${messageOf(error)}`, {
      cause: error,
    });
  }
}

/** The refusal of a patch of `operations` operations over `maxBytes` bytes. */
export function patchTooLarge(operations: number, maxBytes: number): PatchTooLargeError {
  return new PatchTooLargeError(
    `its patch of ${operations} operations is over ${maxBytes} bytes (maxPatchBytes)`,
  );
}

/**
 * The JSON text of the operations. With `maxBytes`, a text that grows past that many characters
 * (so past as many UTF-8 bytes) throws PatchTooLargeError before much more of it is written; the
 * caller checks the exact byte size of a text it gets.
 */
export function patchText(operations: readonly PatchOperation[], maxBytes = Infinity): string {
  if (operations.length <= PIECE || maxBytes === Infinity) return stringify(operations);
  const pieces: string[] = [];
  let length = 1;
  for (let start = 0; start < operations.length; start += PIECE) {
    const piece = stringify(operations.slice(start, start + PIECE));
    length += piece.length - 1; // its operations and a comma or the closing bracket
    if (length > maxBytes) throw patchTooLarge(operations.length, maxBytes);
    pieces.push(piece.slice(1, -1));
  }
  return `[${pieces.join(',')}]`;
}

/**
 * The operations that turn `original` (plain JSON, as parsed from the request) into `mutated`;
 * `[]` when nothing changed. `mutated` is read the way JSON.stringify reads it: an `undefined`
 * property is absent. Throws InvalidPatchError when no correct patch can be made. The result is
 * plain JSON of its own (no value is shared with `mutated`).
 *
 * The diff is index-based for arrays: append to arrays, never insert in front, or every element
 * after the insertion point becomes a `replace`.
 */
export function buildPatch(original: object, mutated: unknown): PatchOperation[] {
  const operations = diffJson(original, mutated);
  if (operations.length === 0) return operations;
  verifyPatch(cloneJson(original), operations, mutated);
  return JSON.parse(patchText(operations)) as PatchOperation[];
}

/** The `response.patch` field: base64 of the JSON text of the operations. */
export function encodePatch(operations: readonly PatchOperation[]): string {
  return Buffer.from(JSON.stringify(operations)).toString('base64');
}
