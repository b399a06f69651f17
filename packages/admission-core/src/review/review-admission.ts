// The whole admission exchange without a network: AdmissionReview text in, AdmissionReview out.
// The server uses it for every request; tests and offline previews (what would this webhook do
// to this Pod?) call it directly.
import { pino, type Logger } from 'pino';
import {
  ADMISSION_API_VERSION,
  type AdmissionRequest,
  type AdmissionReviewResponse,
} from './admission-review.js';
import { admit, type Decision } from './admit.js';
import { cloneJson } from './json-values.js';
import { LARGE_REVIEW_BYTES, largeReviewTurn, yieldToOthers } from './large-reviews.js';
import { DEFAULT_MAX_PATCH_BYTES } from './patch.js';
import { parseAdmissionReview } from './parse-review.js';
import type { Webhook } from '../webhook.js';

export interface ReviewOptions {
  /** Logger handed to the handler (`context.log`). Default: silent. */
  logger?: Logger;
  /** How long an asynchronous handler may take. Default 3000 ms. */
  handlerTimeoutMs?: number;
  /** Deepest nesting of objects and arrays in the review. Default 128. */
  maxJsonDepth?: number;
  /** Most JSON values in the review. Default 200,000. */
  maxJsonValues?: number;
  /**
   * Apply the patch to the object the apiserver sent and compare the result with the handler's
   * object before answering (a mismatch fails the handler: `invalid-patch`). Default true.
   */
  checkPatch?: boolean;
  /**
   * Largest patch answered, in bytes of JSON before base64; a larger one refuses the object
   * (413, whatever the failure mode). Default 1 MiB.
   */
  maxPatchBytes?: number;
}

export interface Review {
  /**
   * The request as the apiserver sent it (the handler saw a copy), except that after a checked
   * patch (`checkPatch`) `request.object` has the patch applied: it is the object the apiserver
   * will go on with.
   */
  request: AdmissionRequest;
  review: AdmissionReviewResponse;
  decision: Decision;
}

function toReviewResponse(decision: Decision): AdmissionReviewResponse {
  return {
    apiVersion: ADMISSION_API_VERSION,
    kind: 'AdmissionReview',
    response: decision.response,
  };
}

let silent: Logger | undefined;

/**
 * Runs `webhook` on an AdmissionReview v1 body (JSON text) and returns the AdmissionReview to
 * send back, with the decision behind it. Throws BadRequestError when the body is not a valid
 * AdmissionReview; a failing handler never throws (its failure mode decides the answer).
 */
export function reviewAdmission(
  webhook: Webhook,
  body: string,
  options: ReviewOptions = {},
): Promise<Review> {
  return runReview(webhook, body, options, undefined);
}

/**
 * reviewAdmission for the server: `beforeLargeWork` runs when a large review's turn has come,
 * and may refuse it (throw) when the process holds too much already.
 */
export async function runReview(
  webhook: Webhook,
  body: string,
  options: ReviewOptions,
  beforeLargeWork: (() => void) | undefined,
): Promise<Review> {
  if (body.length <= LARGE_REVIEW_BYTES) return review(webhook, body, options, undefined);
  const endTurn = await largeReviewTurn();
  try {
    beforeLargeWork?.();
    return await review(webhook, body, options, yieldToOthers);
  } finally {
    endTurn();
  }
}

async function review(
  webhook: Webhook,
  body: string,
  options: ReviewOptions,
  pause: (() => Promise<void>) | undefined,
): Promise<Review> {
  const request = parseAdmissionReview(body, {
    ...(options.maxJsonDepth === undefined ? {} : { maxDepth: options.maxJsonDepth }),
    ...(options.maxJsonValues === undefined ? {} : { maxValues: options.maxJsonValues }),
  });
  if (pause) await pause();
  const copy = cloneJson(request);
  const decision = await admit(webhook, request, copy, {
    log: options.logger ?? (silent ??= pino({ level: 'silent' })),
    handlerTimeoutMs: options.handlerTimeoutMs ?? 3000,
    checkPatch: options.checkPatch ?? true,
    maxPatchBytes: options.maxPatchBytes ?? DEFAULT_MAX_PATCH_BYTES,
    pause,
  });
  return { request, review: toReviewResponse(decision), decision };
}
