// The AdmissionReview v1 wire format (admission.k8s.io/v1), as the kube-apiserver sends and
// expects it. Objects stay plain JSON: the handler sees exactly the bytes the apiserver sent.

export const ADMISSION_API_VERSION = 'admission.k8s.io/v1';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export const OPERATIONS: readonly Operation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/**
 * What the apiserver asks about. `object` is the object being admitted (null for DELETE) and
 * `oldObject` the stored one (UPDATE and DELETE). Both are plain JSON.
 */
export interface AdmissionRequest<T extends object = Record<string, unknown>> {
  uid: string;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource?: string;
  requestKind?: GroupVersionKind;
  requestResource?: GroupVersionResource;
  requestSubResource?: string;
  /** Empty on CREATE when the client used `metadata.generateName`. */
  name?: string;
  namespace?: string;
  operation: Operation;
  userInfo: UserInfo;
  object: T | null;
  oldObject: T | null;
  /** True when the client asked for a dry run: the handler must have no side effect. */
  dryRun: boolean;
  /** CreateOptions, UpdateOptions, DeleteOptions or PatchOptions, as sent. */
  options?: Record<string, unknown>;
}

/** A mutating handler only runs when there is an object to mutate (not on DELETE). */
export interface MutatingRequest<
  T extends object = Record<string, unknown>,
> extends AdmissionRequest<T> {
  object: T;
}

/** The subset of metav1.Status the apiserver reads from an admission response. */
export interface AdmissionStatus {
  code: number;
  message: string;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: AdmissionStatus;
  patchType?: 'JSONPatch';
  /** Base64 of the JSON Patch (RFC 6902). */
  patch?: string;
  warnings?: string[];
}

export interface AdmissionReviewResponse {
  apiVersion: typeof ADMISSION_API_VERSION;
  kind: 'AdmissionReview';
  response: AdmissionResponse;
}
