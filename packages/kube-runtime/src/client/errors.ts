// The one error type of every API call: it names the verb, the object (read back from the URL)
// and the server's own message, so a log line alone says what failed and why.

/** The `details` of a Status answer: which object, and which fields were invalid. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: { reason?: string; message?: string; field?: string }[];
  retryAfterSeconds?: number;
}

/** The body of a failed API request (kind Status). */
export interface Status {
  kind?: string;
  apiVersion?: string;
  status?: string;
  code?: number;
  reason?: string;
  message?: string;
  details?: StatusDetails;
}

/** Reasons for failures that never got an HTTP answer (status 0). */
export type TransportReason = 'ConnectionFailed' | 'Timeout' | 'Aborted';

export class KubeApiError extends Error {
  /** HTTP status; 0 when no answer arrived (connection failure, timeout). */
  readonly status: number;
  /** The Status reason (`NotFound`, `Conflict`, `Invalid`, …) or a {@link TransportReason}. */
  readonly reason: string;
  readonly details: StatusDetails | undefined;
  readonly method: string;
  readonly path: string;
  /** The Retry-After the server asked for, in milliseconds. */
  readonly retryAfterMs: number | undefined;
  /** The low-level error code (ECONNREFUSED, …) for status 0. */
  readonly code: string | undefined;

  constructor(init: {
    method: string;
    path: string;
    status: number;
    reason: string;
    message: string;
    details?: StatusDetails | undefined;
    retryAfterMs?: number | undefined;
    code?: string | undefined;
    cause?: unknown;
  }) {
    const what = `${init.method} ${describePath(init.path)}`;
    const status = init.status === 0 ? init.reason : `${init.status} ${init.reason}`;
    super(`${what}: ${status}: ${init.message}`, { cause: init.cause });
    this.name = 'KubeApiError';
    this.status = init.status;
    this.reason = init.reason;
    this.details = init.details;
    this.method = init.method;
    this.path = init.path;
    this.retryAfterMs = init.retryAfterMs;
    this.code = init.code;
  }

  /** Builds the error from an HTTP answer whose body is (usually) a Status object. */
  static fromResponse(
    method: string,
    path: string,
    status: number,
    body: string,
    retryAfterMs?: number,
  ): KubeApiError {
    let parsed: Status | undefined;
    try {
      const json = JSON.parse(body) as unknown;
      if (json && typeof json === 'object' && (json as Status).kind === 'Status') parsed = json;
    } catch {
      // Not JSON (a proxy or load balancer answered): the text itself is the message.
    }
    const text = body.trim().slice(0, 500);
    return new KubeApiError({
      method,
      path,
      status,
      reason: parsed?.reason ?? reasonForStatus(status),
      message: parsed?.message ?? (text || '(empty body)'),
      details: parsed?.details,
      retryAfterMs,
    });
  }
}

function reasonForStatus(status: number): string {
  const reasons: Record<number, string> = {
    400: 'BadRequest',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'NotFound',
    405: 'MethodNotAllowed',
    409: 'Conflict',
    410: 'Gone',
    415: 'UnsupportedMediaType',
    422: 'Invalid',
    429: 'TooManyRequests',
    500: 'InternalError',
    503: 'ServiceUnavailable',
    504: 'Timeout',
  };
  return reasons[status] ?? 'Unknown';
}

/**
 * `pods team-a/trainer-0`, `namespaces team-a`, `resourcequotas in team-a`, `profiles`:
 * the object an API path points at, for error messages.
 */
export function describePath(path: string): string {
  const parts = path.split('?')[0]?.split('/').filter(Boolean) ?? [];
  // Drop the /api/v1 or /apis/group/version prefix.
  const rest = parts[0] === 'api' ? parts.slice(2) : parts[0] === 'apis' ? parts.slice(3) : parts;
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = decodeURIComponent(rest[1] ?? '');
    rest.splice(0, 2);
  }
  const [resource, name, ...sub] = rest;
  if (resource === undefined) return path;
  const subresource = sub.length > 0 ? `/${sub.join('/')}` : '';
  if (name === undefined) return namespace ? `${resource} in ${namespace}` : resource;
  const id = decodeURIComponent(name);
  return `${resource}${subresource} ${namespace ? `${namespace}/${id}` : id}`;
}

const hasStatus = (error: unknown, status: number): boolean =>
  error instanceof KubeApiError && error.status === status;

export const isNotFound = (error: unknown): boolean => hasStatus(error, 404);
/** 401 or 403: the credentials are refused, or lack a permission. */
export const isUnauthorized = (error: unknown): boolean =>
  hasStatus(error, 401) || hasStatus(error, 403);
export const isConflict = (error: unknown): boolean => hasStatus(error, 409);
export const isAlreadyExists = (error: unknown): boolean =>
  hasStatus(error, 409) && (error as KubeApiError).reason === 'AlreadyExists';
/** The resourceVersion asked for is too old (watch or list continuation): list again. */
export const isGone = (error: unknown): boolean => hasStatus(error, 410);
export const isTooManyRequests = (error: unknown): boolean => hasStatus(error, 429);
