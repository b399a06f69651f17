// Turns a request body into a checked AdmissionRequest, or a BadRequestError whose message names
// the field that is wrong. Handlers can then rely on the shape instead of re-checking it.
import { messageOf } from '@kfx/kube-runtime/serving';
import {
  ADMISSION_API_VERSION,
  OPERATIONS,
  type AdmissionRequest,
  type GroupVersionKind,
  type GroupVersionResource,
  type Operation,
} from './admission-review.js';
import { BadRequestError } from './bad-request.js';
import { checkJsonShape, DEFAULT_JSON_LIMITS, type JsonLimits } from './json-shape.js';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 64));
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${value}`;
  return typeof value;
}

function invalid(field: string, expected: string, got: unknown): BadRequestError {
  return new BadRequestError(
    400,
    'invalid-review',
    `AdmissionReview ${field}: expected ${expected}, got ${describe(got)}`,
  );
}

function optionalString(request: Json, field: string): string | undefined {
  const value = request[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalid(`request.${field}`, 'a string', value);
  return value;
}

function optionalObject(request: Json, field: string): Json | null {
  const value = request[field];
  if (value === undefined || value === null) return null;
  if (!isObject(value)) throw invalid(`request.${field}`, 'an object or null', value);
  return value;
}

function triple<K extends string>(request: Json, field: string, keys: readonly K[]) {
  const value = request[field];
  if (!isObject(value)) throw invalid(`request.${field}`, `an object {${keys.join(', ')}}`, value);
  for (const key of keys) {
    if (typeof value[key] !== 'string') {
      throw invalid(`request.${field}.${key}`, 'a string', value[key]);
    }
  }
  return value as Record<K, string>;
}

function optionalTriple<K extends string>(request: Json, field: string, keys: readonly K[]) {
  return request[field] === undefined ? undefined : triple(request, field, keys);
}

const GVK = ['group', 'version', 'kind'] as const;
const GVR = ['group', 'version', 'resource'] as const;

/**
 * Parses and checks an AdmissionReview v1 body. Throws BadRequestError naming the bad field, or
 * the limit (nesting depth, number of values) the body goes past.
 */
export function parseAdmissionReview(
  body: string,
  limits: Partial<JsonLimits> = {},
): AdmissionRequest {
  let review: unknown;
  try {
    review = JSON.parse(body);
  } catch (error) {
    throw new BadRequestError(400, 'invalid-json', `request body is not JSON: ${messageOf(error)}`);
  }
  // Before anything recursive touches it (JSON.parse itself copes with any depth).
  checkJsonShape(review, { ...DEFAULT_JSON_LIMITS, ...limits });
  if (!isObject(review)) throw invalid('body', 'an AdmissionReview object', review);
  if (review.apiVersion !== ADMISSION_API_VERSION || review.kind !== 'AdmissionReview') {
    throw new BadRequestError(
      400,
      'invalid-review',
      `expected apiVersion "${ADMISSION_API_VERSION}" and kind "AdmissionReview", got apiVersion ` +
        `${describe(review.apiVersion)} and kind ${describe(review.kind)} ` +
        '(only admissionReviewVersions [v1] is served)',
    );
  }
  const request = review.request;
  if (!isObject(request)) throw invalid('request', 'an object', request);
  const uid = request.uid;
  if (typeof uid !== 'string' || uid === '') {
    throw invalid('request.uid', 'a non-empty string', uid);
  }
  const operation = request.operation;
  if (!OPERATIONS.includes(operation as Operation)) {
    throw invalid('request.operation', `one of ${OPERATIONS.join(', ')}`, operation);
  }
  if (request.dryRun !== undefined && typeof request.dryRun !== 'boolean') {
    throw invalid('request.dryRun', 'a boolean', request.dryRun);
  }
  const userInfo = optionalObject(request, 'userInfo') ?? {};
  const options = optionalObject(request, 'options');
  const parsed: AdmissionRequest = {
    uid,
    kind: triple(request, 'kind', GVK) satisfies GroupVersionKind,
    resource: triple(request, 'resource', GVR) satisfies GroupVersionResource,
    operation: operation as Operation,
    userInfo,
    object: optionalObject(request, 'object'),
    oldObject: optionalObject(request, 'oldObject'),
    dryRun: request.dryRun === true,
  };
  const optional = {
    subResource: optionalString(request, 'subResource'),
    requestKind: optionalTriple(request, 'requestKind', GVK),
    requestResource: optionalTriple(request, 'requestResource', GVR),
    requestSubResource: optionalString(request, 'requestSubResource'),
    name: optionalString(request, 'name'),
    namespace: optionalString(request, 'namespace'),
    options: options ?? undefined,
  };
  for (const [key, value] of Object.entries(optional)) {
    if (value !== undefined) Object.assign(parsed, { [key]: value });
  }
  return parsed;
}
