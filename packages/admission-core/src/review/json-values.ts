// Deep copy and equality for JSON trees, hand-written because they run on every admission and
// the general-purpose tools (structuredClone, a JSON round trip) cost several times more.

type Json = Record<string, unknown>;

function setOwn(target: Json, key: string, value: unknown): void {
  // `target.__proto__ = x` would replace the prototype instead of adding the key JSON.parse made.
  if (key === '__proto__') {
    Object.defineProperty(target, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    target[key] = value;
  }
}

/** A deep copy of a tree made by JSON.parse (plain objects, arrays, primitives). */
export function cloneJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  const copy: Json = {};
  // JSON.parse makes no inherited enumerable keys; for-in is the fastest walk over own ones.
  for (const key in value) setOwn(copy, key, cloneJson((value as Json)[key]));
  return copy as T;
}

/** Values JSON.stringify leaves out of an object (and writes as null in an array). */
export function dropped(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/** What JSON.stringify writes in place of `value` (toJSON() honoured). */
export function jsonOf(value: unknown): unknown {
  if (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  ) {
    return (value as { toJSON(): unknown }).toJSON();
  }
  return value;
}

/**
 * Whether `value` (anything a handler returned) serialises to the same JSON as `json` (a parsed
 * tree): undefined properties count as absent and toJSON() is honoured, as in JSON.stringify.
 */
export function sameJson(json: unknown, value: unknown): boolean {
  const v = jsonOf(value);
  if (json === v) {
    // The same BigInt or NaN on both sides is still not something JSON can carry.
    return typeof v !== 'bigint' && !(typeof v === 'number' && !Number.isFinite(v));
  }
  if (typeof json !== 'object' || json === null || typeof v !== 'object' || v === null)
    return false;
  // Plain loops: this walks the whole object on every patched admission.
  if (Array.isArray(json)) {
    if (!Array.isArray(v) || v.length !== json.length) return false;
    for (let index = 0; index < json.length; index += 1) {
      const item: unknown = v[index];
      // JSON.stringify writes what it leaves out of an object as null in an array.
      if (!sameJson(json[index], dropped(item) ? null : item)) return false;
    }
    return true;
  }
  if (Array.isArray(v)) return false;
  const object = json as Json;
  let count = 0;
  for (const key in v) {
    if (!Object.hasOwn(v, key)) continue;
    const item = (v as Json)[key];
    if (dropped(item)) continue;
    count += 1;
    if (!Object.hasOwn(object, key) || !sameJson(object[key], item)) return false;
  }
  for (const key in object) if (Object.hasOwn(object, key)) count -= 1;
  return count === 0;
}
