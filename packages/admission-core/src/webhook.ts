// The handler model: a webhook is a name, a path, a failure mode and one pure function. The
// definitions are checked here, once, so that a typo fails at start-up rather than at admission.
import type { Logger } from 'pino';
import type { AdmissionRequest, MutatingRequest } from './review/admission-review.js';

/** What the server answers when the handler throws, times out or returns something invalid. */
export type FailureMode = 'admit' | 'deny';

export interface AdmissionContext {
  /** The request is a dry run: the handler must not change anything outside its result. */
  dryRun: boolean;
  /** A pino child logger bound to the webhook name and the request uid. */
  log: Logger;
  /** Aborted when the handler runs out of time (`handlerTimeoutMs`). */
  signal: AbortSignal;
}

export interface Denial {
  allowed: false;
  /** Shown to the client as the reason, e.g. by kubectl. */
  reason: string;
  /** HTTP status code for the denial, 400-599. Default 403. */
  code?: number;
  warnings?: string[];
}

export type MutateResult<T> = { allowed: true; object?: T; warnings?: string[] } | Denial;

export type ValidateResult = { allowed: true; warnings?: string[] } | Denial;

interface WebhookBase {
  /** Short DNS-label name, e.g. `proxy-injector`; used in logs, metrics and messages. */
  name: string;
  /** HTTPS path the apiserver posts to, e.g. `/mutate/proxy-injector`. */
  path: string;
  failureMode: FailureMode;
  /** Called by the server before it listens, e.g. to fill a cache; a rejection fails start(). */
  start?(): Promise<void>;
  /** Called by the server after close() has drained the last request. */
  stop?(): Promise<void>;
  /** Consulted by `GET /readyz`: not ready while `ok` is false (the reasons are shown). */
  readiness?(): { ok: boolean; reasons: string[] };
}

export interface MutatingWebhook<T extends object = Record<string, unknown>> extends WebhookBase {
  type: 'mutating';
  /**
   * `request.object` is the handler's own deep copy: modify it in place or return another
   * object. The patch is the difference between what the apiserver sent and
   * `result.object ?? request.object`.
   */
  mutate(
    request: MutatingRequest<T>,
    context: AdmissionContext,
  ): MutateResult<T> | Promise<MutateResult<T>>;
}

export interface ValidatingWebhook<T extends object = Record<string, unknown>> extends WebhookBase {
  type: 'validating';
  validate(
    request: AdmissionRequest<T>,
    context: AdmissionContext,
  ): ValidateResult | Promise<ValidateResult>;
}

// Method syntax above keeps the handler parameter bivariant, so a webhook for a V1Pod can sit in
// a list of webhooks for any object.
export type Webhook = MutatingWebhook<object> | ValidatingWebhook<object>;

export type MutatingWebhookDefinition<T extends object> = Omit<MutatingWebhook<T>, 'type'>;
export type ValidatingWebhookDefinition<T extends object> = Omit<ValidatingWebhook<T>, 'type'>;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const PATH = /^\/[A-Za-z0-9\-._~/]*$/;

function check(definition: WebhookBase, handler: string, fn: unknown): void {
  const { name, path, failureMode } = definition;
  const what = `webhook ${JSON.stringify(name)}`;
  if (typeof name !== 'string' || !DNS_LABEL.test(name)) {
    throw new TypeError(`${what}: name must be a DNS label (lower-case letters, digits and -)`);
  }
  if (typeof path !== 'string' || !PATH.test(path)) {
    throw new TypeError(`${what}: path must start with / and hold only URL path characters`);
  }
  if (!['admit', 'deny'].includes(failureMode)) {
    throw new TypeError(`${what}: failureMode must be "admit" or "deny"`);
  }
  if (typeof fn !== 'function') throw new TypeError(`${what}: ${handler} must be a function`);
  for (const hook of ['start', 'stop', 'readiness'] as const) {
    if (definition[hook] !== undefined && typeof definition[hook] !== 'function') {
      throw new TypeError(`${what}: ${hook} must be a function when given`);
    }
  }
}

/** Defines a mutating webhook. Throws a TypeError naming the bad field. */
export function defineMutatingWebhook<T extends object = Record<string, unknown>>(
  definition: MutatingWebhookDefinition<T>,
): MutatingWebhook<T> {
  check(definition, 'mutate', definition.mutate);
  return { ...definition, type: 'mutating' };
}

/** Defines a validating webhook. Throws a TypeError naming the bad field. */
export function defineValidatingWebhook<T extends object = Record<string, unknown>>(
  definition: ValidatingWebhookDefinition<T>,
): ValidatingWebhook<T> {
  check(definition, 'validate', definition.validate);
  return { ...definition, type: 'validating' };
}
