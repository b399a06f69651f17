// Runs one webhook on one checked request and builds the AdmissionResponse: the patch for a
// mutation, the reason for a denial, and the webhook's failure mode when the handler fails.
import type { Logger } from 'pino';
import type { AdmissionRequest, AdmissionResponse, MutatingRequest } from './admission-review.js';
import {
  callHandler,
  checkResult,
  handlerContext,
  HandlerFailure,
  handlerMessage,
  type HandlerFailureReason,
} from './handler-call.js';
import { objectRef } from './object-ref.js';
import { diffJson } from './json-diff.js';
import { patchText, patchTooLarge, PatchTooLargeError, verifyPatch } from './patch.js';
import type { Webhook } from '../webhook.js';

export type Outcome = 'allowed' | 'patched' | 'denied' | 'failed-open' | 'failed-closed';

export interface Decision {
  response: AdmissionResponse;
  outcome: Outcome;
  /**
   * Set when the handler failed (the response then follows the webhook's failure mode), or when
   * its patch was over maxPatchBytes (`patch-too-large`: the object is refused, whatever the mode).
   */
  failure?: { reason: HandlerFailureReason | 'patch-too-large'; message: string };
  patchOperations: number;
  /** Size of the patch JSON before base64, 0 without a patch. */
  patchBytes: number;
}

export interface AdmitOptions {
  log: Logger;
  handlerTimeoutMs: number;
  /** Apply the patch to `request.object` and compare with the handler's object. */
  checkPatch: boolean;
  /** Largest patch sent, in bytes of JSON before base64; a larger one refuses the object. */
  maxPatchBytes: number;
  /** Awaited between the steps of a large review, so that other requests get their turn. */
  pause?: (() => Promise<void>) | undefined;
}

// Kubernetes may truncate longer warnings; keep the whole message inside the limit.
const MAX_WARNING = 250;

function withWarnings(response: AdmissionResponse, warnings: string[] | undefined) {
  if (warnings !== undefined && warnings.length > 0) response.warnings = warnings;
  return response;
}

function fail(webhook: Webhook, request: AdmissionRequest<object>, error: unknown): Decision {
  const failure =
    error instanceof HandlerFailure
      ? error
      : new HandlerFailure('handler-error', handlerMessage(error));
  const subject = `webhook ${webhook.name} failed on ${objectRef(request)} (${request.operation})`;
  const detail = { reason: failure.reason, message: failure.message };
  const base = { failure: detail, patchOperations: 0, patchBytes: 0 };
  if (webhook.failureMode === 'deny') {
    const status = { code: 500, message: `${subject}: ${failure.message}` };
    return {
      ...base,
      outcome: 'failed-closed',
      response: { uid: request.uid, allowed: false, status },
    };
  }
  let warning = `${subject} and admitted it unchanged: ${failure.message}`;
  if (warning.length > MAX_WARNING) warning = `${warning.slice(0, MAX_WARNING - 1)}…`;
  return {
    ...base,
    outcome: 'failed-open',
    response: { uid: request.uid, allowed: true, warnings: [warning] },
  };
}

/**
 * A patch over maxPatchBytes refuses the object whatever the failure mode: admitting it unchanged
 * is what a tenant who made a Pod that large would want (a Pod without its proxy settings), and
 * the apiserver could hardly store the result anyway (etcd keeps objects under 1.5 MiB). 413: the
 * object is too large for its mutation; the apiserver shows the message to its creator.
 */
function refuseLarge(webhook: Webhook, request: AdmissionRequest<object>, error: Error): Decision {
  const message =
    `webhook ${webhook.name} refused ${objectRef(request)} (${request.operation}): ` +
    `${error.message}, and the object is not admitted without its change`;
  return {
    outcome: 'denied',
    response: { uid: request.uid, allowed: false, status: { code: 413, message } },
    failure: { reason: 'patch-too-large', message },
    patchOperations: 0,
    patchBytes: 0,
  };
}

/**
 * Asks `webhook` about `request`. `copy` is an independent deep copy of it: the handler may change
 * it freely. When a patch is made and checked, `request.object` ends up patched (the check that
 * the patch applies is done on it, saving a copy). Never throws.
 */
export async function admit(
  webhook: Webhook,
  request: AdmissionRequest<object>,
  copy: AdmissionRequest<object>,
  options: AdmitOptions,
): Promise<Decision> {
  const { uid } = request;
  const none = { patchOperations: 0, patchBytes: 0 };
  try {
    if (webhook.type === 'mutating' && (request.object === null || copy.object === null)) {
      // Nothing to mutate (DELETE, or CONNECT without options): admit without asking.
      return { ...none, outcome: 'allowed', response: { uid, allowed: true } };
    }
    const handler = handlerContext(webhook.name, copy, options.log);
    const invoke =
      webhook.type === 'mutating'
        ? () => webhook.mutate(copy as MutatingRequest<object>, handler.context)
        : () => webhook.validate(copy, handler.context);
    const result = checkResult(await callHandler(invoke, options.handlerTimeoutMs, handler));
    if (!result.allowed) {
      const status = { code: result.code ?? 403, message: result.reason };
      const response = withWarnings({ uid, allowed: false, status }, result.warnings);
      return { ...none, outcome: 'denied', response };
    }
    if (webhook.type === 'validating' || request.object === null) {
      return {
        ...none,
        outcome: 'allowed',
        response: withWarnings({ uid, allowed: true }, result.warnings),
      };
    }
    let operations;
    let text: string;
    let bytes: number;
    const mutated = result.object ?? copy.object;
    try {
      if (options.pause) await options.pause();
      operations = diffJson(request.object, mutated);
      if (operations.length === 0) {
        return {
          ...none,
          outcome: 'allowed',
          response: withWarnings({ uid, allowed: true }, result.warnings),
        };
      }
      if (options.pause) await options.pause();
      // Written and measured before the patch check: one past the limit is refused without it.
      const limit = options.maxPatchBytes;
      text = patchText(operations, limit);
      bytes = Buffer.byteLength(text);
      if (bytes > limit) throw patchTooLarge(operations.length, limit);
      if (options.checkPatch) {
        if (options.pause) await options.pause();
        // The check is done on the parsed original, which ends up patched (saves a copy).
        verifyPatch(request.object, operations, mutated);
      }
    } catch (error) {
      if (error instanceof PatchTooLargeError) return refuseLarge(webhook, request, error);
      throw new HandlerFailure('invalid-patch', handlerMessage(error));
    }
    const response: AdmissionResponse = {
      uid,
      allowed: true,
      patchType: 'JSONPatch',
      patch: Buffer.from(text).toString('base64'),
    };
    return {
      outcome: 'patched',
      response: withWarnings(response, result.warnings),
      patchOperations: operations.length,
      patchBytes: bytes,
    };
  } catch (error) {
    return fail(webhook, request, error);
  }
}
