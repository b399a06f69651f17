// Runs a webhook on a Pod the way the server does (AdmissionReview text in, AdmissionReview out)
// and also returns the Pod as the handler left it, so tests can check both the wire answer and
// the result the patch produces.
import {
  admissionReviewFor,
  parseAdmissionReview,
  reviewAdmission,
  type MutatingRequest,
  type MutatingWebhook,
  type PatchOperation,
  type ReviewFor,
} from '@kfx/admission-core';
import { pino } from 'pino';
import type { Pod } from './pods.js';

export interface Admitted {
  allowed: boolean;
  patch: PatchOperation[];
  warnings: string[];
  outcome: string;
  /** The Pod as the handler left it. */
  pod: Pod;
}

const silent = pino({ level: 'silent' });

export async function admit(
  webhook: MutatingWebhook<Pod>,
  pod: Pod,
  review: Omit<ReviewFor, 'object'> = {},
): Promise<Admitted> {
  const body = JSON.stringify(admissionReviewFor({ object: pod, ...review }));
  const { decision } = await reviewAdmission(webhook, body, { logger: silent });
  const { response } = decision;
  const patch = response.patch
    ? (JSON.parse(Buffer.from(response.patch, 'base64').toString()) as PatchOperation[])
    : [];
  const request = parseAdmissionReview(body) as MutatingRequest<Pod>;
  const context = { dryRun: false, log: silent, signal: new AbortController().signal };
  let mutated = request.object;
  try {
    const result = await webhook.mutate(request, context);
    if (result.allowed && result.object) mutated = result.object;
  } catch {
    mutated = parseAdmissionReview(body).object as Pod; // failed open: admitted unchanged
  }
  return {
    allowed: response.allowed,
    patch,
    warnings: response.warnings ?? [],
    outcome: decision.outcome,
    pod: mutated,
  };
}
