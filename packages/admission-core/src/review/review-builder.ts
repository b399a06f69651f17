// Builds the AdmissionReview the apiserver would send for an object, so that handler authors can
// unit-test a webhook with reviewAdmission() and no cluster.
import { randomUUID } from 'node:crypto';
import { ADMISSION_API_VERSION, type Operation, type UserInfo } from './admission-review.js';

export interface ReviewFor {
  /** The object under admission; its apiVersion, kind and metadata fill the request. */
  object?: object | null;
  oldObject?: object | null;
  /** Default CREATE (DELETE when only oldObject is given). */
  operation?: Operation;
  /** Plural resource name. Default: the kind in lower case with an `s`. */
  resource?: string;
  subResource?: string;
  dryRun?: boolean;
  userInfo?: UserInfo;
  uid?: string;
}

interface Described {
  apiVersion?: unknown;
  kind?: unknown;
  metadata?: { name?: unknown; namespace?: unknown };
}

/** An `admission.k8s.io/v1` AdmissionReview request for `options.object` (plain JSON). */
export function admissionReviewFor(options: ReviewFor) {
  const { object = null, oldObject = null } = options;
  const described = (object ?? oldObject ?? {}) as Described;
  const apiVersion = typeof described.apiVersion === 'string' ? described.apiVersion : 'v1';
  const slash = apiVersion.lastIndexOf('/');
  const group = slash === -1 ? '' : apiVersion.slice(0, slash);
  const version = apiVersion.slice(slash + 1);
  const kind = typeof described.kind === 'string' ? described.kind : 'Unknown';
  const { name, namespace } = described.metadata ?? {};
  const resource = options.resource ?? `${kind.toLowerCase()}s`;
  return {
    apiVersion: ADMISSION_API_VERSION,
    kind: 'AdmissionReview',
    request: {
      uid: options.uid ?? randomUUID(),
      kind: { group, version, kind },
      resource: { group, version, resource },
      ...(options.subResource ? { subResource: options.subResource } : {}),
      requestKind: { group, version, kind },
      requestResource: { group, version, resource },
      ...(typeof name === 'string' ? { name } : {}),
      ...(typeof namespace === 'string' ? { namespace } : {}),
      operation: options.operation ?? (object === null && oldObject !== null ? 'DELETE' : 'CREATE'),
      userInfo: options.userInfo ?? { username: 'kubernetes-admin', groups: ['system:masters'] },
      object,
      oldObject,
      dryRun: options.dryRun ?? false,
    },
  };
}
