// Bounds on the shape of a parsed review, checked before anything walks it recursively. JSON.parse
// copes with 100,000 nested arrays, but the copy, the diff and the patch check recurse once per
// level and would overflow the stack; and the work per review grows with the number of values.
// The check itself keeps its own stack, so no input can make it recurse.
import { BadRequestError } from './bad-request.js';

export interface JsonLimits {
  /** Deepest nesting of objects and arrays in the whole review (the review itself is level 1). */
  maxDepth: number;
  /** Most values (objects, arrays, strings, numbers, booleans, nulls) in the whole review. */
  maxValues: number;
}

export const DEFAULT_JSON_LIMITS: JsonLimits = { maxDepth: 128, maxValues: 200_000 };

/**
 * The recursive walks (the copy, the diff, the patch check) overflow V8's default stack between
 * 2,500 and 3,000 levels on Node 24; this leaves room for the handler's own recursion.
 */
export const MAX_JSON_DEPTH_LIMIT = 1000;

type Json = Record<string, unknown>;

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function segment(key: string | number): string {
  if (typeof key === 'number') return `[${key}]`;
  return IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/** `request.object.spec.deep[0][0]…`: the path to `keys`, shortened after a dozen steps. */
function pathOf(keys: readonly (string | number)[]): string {
  const shown = keys.slice(0, 12).map(segment).join('').replace(/^\./, '');
  return keys.length > 12 ? `${shown}…` : shown;
}

interface Frame {
  value: object;
  key: string | number;
  parent: Frame | undefined;
  depth: number;
}

function keysOf(frame: Frame): (string | number)[] {
  const keys: (string | number)[] = [];
  for (let at = frame; at.parent; at = at.parent) keys.push(at.key);
  return keys.reverse();
}

/** The path to the first container deeper than `maxDepth`: a second walk, run once refused. */
function locateTooDeep(root: object, maxDepth: number): (string | number)[] {
  const stack: Frame[] = [{ value: root, key: '', parent: undefined, depth: 1 }];
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    if (frame.depth > maxDepth) return keysOf(frame);
    const { value, depth } = frame;
    const entries: [string | number, unknown][] = Array.isArray(value)
      ? value.map((item, index) => [index, item])
      : Object.entries(value);
    for (const [key, item] of entries) {
      if (isContainer(item)) stack.push({ value: item, key, parent: frame, depth: depth + 1 });
    }
  }
  return [];
}

/** The field of the review the path is in, e.g. `request.object`, for the message's subject. */
function subjectOf(keys: readonly (string | number)[]): string {
  return keys[0] === 'request' && keys.length > 1 ? pathOf(keys.slice(0, 2)) : pathOf(keys);
}

function tooDeep(review: object, limits: JsonLimits): BadRequestError {
  const keys = locateTooDeep(review, limits.maxDepth);
  return new BadRequestError(
    400,
    'json-too-deep',
    `AdmissionReview ${subjectOf(keys)}: nested deeper than ${limits.maxDepth} levels ` +
      `(maxJsonDepth) at ${pathOf(keys)}`,
  );
}

/** The top-level field of the request holding the most values, to say where they are. */
function largestField(review: unknown): string {
  const request = (review as { request?: unknown }).request;
  if (!isContainer(request) || Array.isArray(request)) return 'body';
  let largest = 'request';
  let most = -1;
  for (const key in request) {
    const count = countValues((request as Json)[key]);
    if (count > most) [largest, most] = [pathOf(['request', key]), count];
  }
  return largest;
}

/** Counts the values in `root` without recursing. */
function countValues(root: unknown): number {
  let count = 0;
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    count += 1;
    if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
    } else if (isContainer(value)) {
      for (const key in value) stack.push((value as Json)[key]);
    }
  }
  return count;
}

/**
 * Checks a parsed review against `limits` without recursing. Throws a 400 BadRequestError naming
 * the limit and where it was crossed.
 */
export function checkJsonShape(review: unknown, limits: JsonLimits): void {
  const { maxDepth, maxValues } = limits;
  // Parallel stacks of containers and their levels: no allocation per value.
  const containers: unknown[] = [];
  const levels: number[] = [];
  let values = 1;
  if (isContainer(review)) {
    containers.push(review);
    levels.push(1);
  }
  while (containers.length > 0) {
    const value = containers.pop();
    const level = levels.pop() ?? 0;
    if (level > maxDepth) throw tooDeep(review as object, limits);
    if (Array.isArray(value)) {
      values += value.length;
      for (const item of value) {
        if (isContainer(item)) {
          containers.push(item);
          levels.push(level + 1);
        }
      }
    } else {
      for (const key in value as Json) {
        const item = (value as Json)[key];
        values += 1;
        if (isContainer(item)) {
          containers.push(item);
          levels.push(level + 1);
        }
      }
    }
    if (values > maxValues) {
      throw new BadRequestError(
        400,
        'json-too-many-values',
        `AdmissionReview ${largestField(review)}: more than ${maxValues} JSON values ` +
          '(maxJsonValues) in the review',
      );
    }
  }
}
