// Before any check: does this identity hold every right the doctor needs? One
// SelfSubjectAccessReview per right (which any authenticated identity may create), all at once,
// so that a missing right is named before anything is read, and all of them in one message.
import { inParallel, type KubeClient } from '@kfx/kube-runtime/client';
import { DOCTOR_RULES, describeRight, rightsOf, type Right } from './rights.js';

/** The identity lacks rights the doctor needs; `kfx doctor` exits 2 with this message. */
export class AccessError extends Error {
  constructor(readonly missing: readonly Right[]) {
    super(
      `no access: this identity may not ${missing.map(describeRight).join(', ')}. kfx doctor needs the rights of the ClusterRole the controller chart installs with doctor.enabled=true (bound to its ServiceAccount <release>-doctor and to doctor.subjects: your user or group); see docs/doctor/rights.md`,
    );
    this.name = 'AccessError';
  }
}

interface AccessReview {
  status?: { allowed?: boolean };
}

/** The rights of `rules` (default: the doctor's) this client's identity lacks. */
export async function missingRights(
  client: KubeClient,
  rules = DOCTOR_RULES,
  signal?: AbortSignal,
): Promise<Right[]> {
  const rights = rightsOf(rules);
  const allowed = new Array<boolean>(rights.length).fill(false);
  await inParallel(rights, 16, async (right, index) => {
    const review = await client.request<AccessReview>(
      'POST',
      '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      {
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectAccessReview',
          spec: { resourceAttributes: right },
        },
        ...(signal ? { signal } : {}),
      },
    );
    allowed[index] = review.status?.allowed === true;
  });
  return rights.filter((_, index) => !allowed[index]);
}

/** Throws AccessError naming every right of the doctor this identity lacks. */
export async function requireAccess(client: KubeClient, signal?: AbortSignal): Promise<void> {
  const missing = await missingRights(client, DOCTOR_RULES, signal);
  if (missing.length > 0) throw new AccessError(missing);
}
