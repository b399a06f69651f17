// Calling a handler safely: a throw, a rejected promise, a timeout and a malformed result all
// become a HandlerFailure with a reason for the errors metric, never an escaped exception.
import { messageOf } from '@kfx/kube-runtime/serving';
import type { Logger } from 'pino';
import type { AdmissionRequest } from './admission-review.js';
import type { AdmissionContext, Denial } from '../webhook.js';

export type HandlerFailureReason =
  'handler-error' | 'handler-timeout' | 'invalid-result' | 'invalid-patch';

export class HandlerFailure extends Error {
  override readonly name = 'HandlerFailure';
  readonly reason: HandlerFailureReason;

  constructor(reason: HandlerFailureReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** What a handler threw, for `status.message`; a thrown non-Error is said to be one. */
export function handlerMessage(error: unknown): string {
  const message = messageOf(error);
  return error instanceof Error || typeof error === 'string'
    ? message
    : `non-Error thrown: ${message}`;
}

export interface HandlerContext {
  context: AdmissionContext;
  /** Aborts `context.signal`, if the handler ever looked at it. */
  abort(reason: Error): void;
}

/**
 * The context a handler gets. The logger child and the AbortController cost more than a typical
 * handler, so they are made on first use. A class, not an object literal with getters: V8 gives
 * every such literal its own hidden class, which holds the getters' closures (and through them
 * the whole request) in old space until a full collection, and makes every young-generation
 * collection slow.
 */
class LazyContext implements AdmissionContext {
  readonly dryRun: boolean;
  readonly #parent: Logger;
  readonly #webhook: string;
  readonly #uid: string;
  #child: Logger | undefined;
  #controller: AbortController | undefined;

  constructor(webhook: string, request: AdmissionRequest<object>, log: Logger) {
    this.dryRun = request.dryRun;
    this.#parent = log;
    this.#webhook = webhook;
    this.#uid = request.uid;
  }

  get log(): Logger {
    return (this.#child ??= this.#parent.child({ webhook: this.#webhook, uid: this.#uid }));
  }

  get signal(): AbortSignal {
    return (this.#controller ??= new AbortController()).signal;
  }

  static abort(context: LazyContext, reason: Error): void {
    context.#controller?.abort(reason);
  }
}

export function handlerContext(
  webhook: string,
  request: AdmissionRequest<object>,
  log: Logger,
): HandlerContext {
  const context = new LazyContext(webhook, request, log);
  return {
    context,
    abort: (reason: Error) => {
      LazyContext.abort(context, reason);
    },
  };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** Runs `invoke`; an async answer races `timeoutMs`. Synchronous handlers pay for no timer. */
export async function callHandler(
  invoke: () => unknown,
  timeoutMs: number,
  handler: HandlerContext,
): Promise<unknown> {
  let value: unknown;
  try {
    value = invoke();
  } catch (error) {
    throw new HandlerFailure('handler-error', handlerMessage(error));
  }
  if (!isThenable(value)) return value;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const failure = new HandlerFailure('handler-timeout', `no answer within ${timeoutMs} ms`);
      handler.abort(failure);
      reject(failure);
    }, timeoutMs);
  });
  const answer = Promise.resolve(value).then(undefined, (error: unknown) => {
    throw new HandlerFailure('handler-error', handlerMessage(error));
  });
  try {
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export interface Allowance {
  allowed: true;
  object?: unknown;
  warnings?: string[];
}

function invalidResult(problem: string): HandlerFailure {
  return new HandlerFailure('invalid-result', `the handler returned ${problem}`);
}

/** Checks what a handler returned, for handlers written in plain JavaScript or cast loosely. */
export function checkResult(result: unknown): Allowance | Denial {
  if (typeof result !== 'object' || result === null) {
    throw invalidResult(`${String(result)} instead of { allowed, ... }`);
  }
  const { allowed, warnings } = result as Record<string, unknown>;
  if (
    warnings !== undefined &&
    !(Array.isArray(warnings) && warnings.every((w) => typeof w === 'string'))
  ) {
    throw invalidResult('warnings that are not an array of strings');
  }
  if (allowed === true) return result as Allowance;
  if (allowed !== false) throw invalidResult('a result whose allowed is not true or false');
  const { reason, code } = result as Record<string, unknown>;
  if (typeof reason !== 'string' || reason === '') {
    throw invalidResult('a denial without a reason');
  }
  if (
    code !== undefined &&
    !(Number.isInteger(code) && Number(code) >= 400 && Number(code) < 600)
  ) {
    throw invalidResult(`a denial code ${JSON.stringify(code)}; expected an HTTP status 400-599`);
  }
  return result as Denial;
}
