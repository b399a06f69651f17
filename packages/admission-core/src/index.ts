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
} from './admission-review.js';
export type { Decision, Outcome } from './admit.js';
export { BadRequestError, type BadRequestReason } from './bad-request.js';
export {
  writeDevCertificates,
  type DevCertificateOptions,
  type DevCertificates,
} from './dev-certificates.js';
export type { HandlerFailureReason } from './handler-call.js';
export { escapePointerToken, jsonPointer } from './json-pointer.js';
export { createAdmissionMetrics, METRIC_NAMES, type AdmissionMetrics } from './metrics.js';
export { objectName, objectRef } from './object-ref.js';
export { parseAdmissionReview } from './parse-review.js';
export { buildPatch, encodePatch, InvalidPatchError, type PatchOperation } from './patch.js';
export { reviewAdmission, type Review, type ReviewOptions } from './review-admission.js';
export { admissionReviewFor, type ReviewFor } from './review-builder.js';
export { createAdmissionServer, type AdmissionServer } from './server.js';
export type { AdmissionServerOptions } from './server-options.js';
export { closeOnSignals, type CloseOnSignalsOptions } from './signals.js';
export type { TlsFiles, TlsPair } from './serving-tls.js';
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
export {
  renderWebhookConfiguration,
  type MutatingWebhookConfiguration,
  type ValidatingWebhookConfiguration,
  type WebhookConfigurationOptions,
  type WebhookRegistration,
} from './webhook-configuration.js';
export type { Plain } from './plain-json.js';
