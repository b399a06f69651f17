// The RFC 6902 operations that turn the object the apiserver sent into what the handler made of
// it, in one walk of both trees. Nothing is copied: an operation's value is the handler's own, and
// a path is only written out for an operation, not for every value visited. What JSON cannot
// carry (a BigInt, NaN, a cycle) is refused where it would enter the patch.
import { escapePointerToken } from './json-pointer.js';
import { dropped, jsonOf } from './json-values.js';

export type PatchOperation =
  { op: 'add' | 'replace'; path: string; value: unknown } | { op: 'remove'; path: string };

export class InvalidPatchError extends Error {
  override readonly name = 'InvalidPatchError';
}

type Json = Record<string, unknown>;
type Key = string | number;

function pointerOf(keys: readonly Key[], last?: Key): string {
  let pointer = '';
  for (const key of keys) pointer += `/${typeof key === 'number' ? key : escapePointerToken(key)}`;
  if (last !== undefined) {
    pointer += `/${typeof last === 'number' ? last : escapePointerToken(last)}`;
  }
  return pointer;
}

function notJson(what: string, keys: readonly Key[], last: Key, inside: readonly Key[]): never {
  const where = pointerOf([...keys, last, ...inside]) || '/';
  throw new InvalidPatchError(`the returned object is not JSON: ${what} at ${where}`);
}

/**
 * Throws unless `value` (already through jsonOf) serialises as it is: no BigInt, NaN or Infinity
 * (JSON.stringify would throw, or write null), no cycle. Walks only the values a patch carries.
 */
function checkJson(
  value: unknown,
  keys: readonly Key[],
  last: Key,
  inside: Key[] = [],
  open: object[] = [],
): void {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return;
    case 'number':
      if (!Number.isFinite(value)) notJson(String(value), keys, last, inside);
      return;
    case 'bigint':
      notJson('a BigInt', keys, last, inside);
      break;
    case 'object': {
      if (value === null) return;
      if (open.includes(value)) notJson('a cycle', keys, last, inside);
      open.push(value);
      if (Array.isArray(value)) {
        for (let index = 0; index < value.length; index += 1) {
          const item = jsonOf(value[index]);
          if (dropped(item)) continue; // written as null
          inside.push(index);
          checkJson(item, keys, last, inside, open);
          inside.pop();
        }
      } else {
        for (const key in value) {
          if (!Object.hasOwn(value, key)) continue;
          const item = jsonOf((value as Json)[key]);
          if (dropped(item)) continue;
          inside.push(key);
          checkJson(item, keys, last, inside, open);
          inside.pop();
        }
      }
      open.pop();
      return;
    }
    default:
      notJson(`a ${typeof value}`, keys, last, inside);
  }
}

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

class Diff {
  readonly operations: PatchOperation[] = [];
  /** The keys from the root to the container being compared. */
  readonly keys: Key[] = [];

  private path(last: Key): string {
    if (last === '__proto__' || this.keys.includes('__proto__')) {
      throw new InvalidPatchError(
        `the computed patch does not apply to the original: it writes under the key __proto__ ` +
          `(${pointerOf(this.keys, last)}), which JavaScript objects cannot hold faithfully`,
      );
    }
    return pointerOf(this.keys, last);
  }

  private put(op: 'add' | 'replace', key: Key, value: unknown): void {
    checkJson(value, this.keys, key);
    this.operations.push({ op, path: this.path(key), value });
  }

  /** `before` is plain JSON; `after` has been through jsonOf and is not a dropped value. */
  value(key: Key, before: unknown, after: unknown): void {
    if (before === after) return;
    if (
      isContainer(before) &&
      isContainer(after) &&
      Array.isArray(before) === Array.isArray(after)
    ) {
      this.keys.push(key);
      this.container(before, after);
      this.keys.pop();
      return;
    }
    this.put('replace', key, after);
  }

  container(before: object, after: object): void {
    if (Array.isArray(before)) {
      const list = after as unknown[];
      // Removals from the end first, so that each index is still the one meant.
      for (let index = before.length - 1; index >= list.length; index -= 1) {
        this.operations.push({ op: 'remove', path: this.path(index) });
      }
      const common = Math.min(before.length, list.length);
      for (let index = 0; index < common; index += 1) {
        const item = jsonOf(list[index]);
        this.value(index, before[index], dropped(item) ? null : item);
      }
      for (let index = before.length; index < list.length; index += 1) {
        const item = jsonOf(list[index]);
        this.put('add', index, dropped(item) ? null : item);
      }
      return;
    }
    const old = before as Json;
    const now = after as Json;
    // `old` is plain JSON (own keys only, no undefined, no functions): an inherited method read
    // from `now` counts as absent, as JSON.stringify would have it. Only `__proto__` reads
    // something else when it is not an own key, so it alone is asked for by name.
    for (const key in old) {
      const item = key === '__proto__' && !Object.hasOwn(now, key) ? undefined : jsonOf(now[key]);
      if (dropped(item)) this.operations.push({ op: 'remove', path: this.path(key) });
      else this.value(key, old[key], item);
    }
    for (const key in now) {
      const known = old[key];
      if (known !== undefined && typeof known !== 'function' && key !== '__proto__') continue;
      if (Object.hasOwn(old, key) || !Object.hasOwn(now, key)) continue;
      const item = jsonOf(now[key]);
      if (!dropped(item)) this.put('add', key, item);
    }
  }
}

/**
 * The operations from `original` (plain JSON, as parsed) to `mutated` as JSON.stringify would
 * write it: `undefined` properties are absent, toJSON() is honoured. Arrays are compared index by
 * index (append, never insert in front). Throws InvalidPatchError for a value JSON cannot carry.
 */
export function diffJson(original: object, mutated: unknown): PatchOperation[] {
  const after = jsonOf(mutated);
  if (!isContainer(after) || Array.isArray(after) || Array.isArray(original)) {
    throw new InvalidPatchError('the returned object is not a JSON object');
  }
  const diff = new Diff();
  diff.container(original, after);
  return diff.operations;
}
