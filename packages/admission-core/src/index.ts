export {
  ADMISSION_API_VERSION,
  OPERATIONS,
  type AdmissionRequest,
  type AdmissionResponse,
  type AdmissionReviewResponse,
  type AdmissionStatus,
  type GroupVersionKind,
  type GroupVersionResource,
  type MutatingRequest,
  type Operation,
  type UserInfo,
} from './review/admission-review.js';
export type { Decision, Outcome } from './review/admit.js';
export { BadRequestError, type BadRequestReason } from './review/bad-request.js';
export type { HandlerFailureReason } from './review/handler-call.js';
export { escapePointerToken, jsonPointer } from './review/json-pointer.js';
export { objectName, objectRef } from './review/object-ref.js';
export { parseAdmissionReview } from './review/parse-review.js';
export { buildPatch, encodePatch, InvalidPatchError, type PatchOperation } from './review/patch.js';
export type { Plain } from './review/plain-json.js';
export { reviewAdmission, type Review, type ReviewOptions } from './review/review-admission.js';
export { admissionReviewFor, type ReviewFor } from './review/review-builder.js';
export { createAdmissionMetrics, METRIC_NAMES, type AdmissionMetrics } from './server/metrics.js';
export type { AdmissionServerOptions } from './server/server-options.js';
export { createAdmissionServer, type AdmissionServer } from './server/server.js';
export type { TlsFiles, TlsPair } from './server/serving-tls.js';
export {
  writeDevCertificates,
  type DevCertificateOptions,
  type DevCertificates,
} from './dev-certificates.js';
export {
  renderWebhookConfiguration,
  type MutatingWebhookConfiguration,
  type ValidatingWebhookConfiguration,
  type WebhookConfigurationOptions,
  type WebhookRegistration,
} from './webhook-configuration.js';
export {
  defineMutatingWebhook,
  defineValidatingWebhook,
  type AdmissionContext,
  type Denial,
  type FailureMode,
  type MutateResult,
  type MutatingWebhook,
  type MutatingWebhookDefinition,
  type ValidateResult,
  type ValidatingWebhook,
  type ValidatingWebhookDefinition,
  type Webhook,
} from './webhook.js';
