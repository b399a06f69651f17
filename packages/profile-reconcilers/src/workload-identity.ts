// The cloud half of a Profile's `WorkloadIdentity` plugin, made the Kubernetes way: GKE lets a
// Kubernetes ServiceAccount act as a Google service account once that account grants
// `roles/iam.workloadIdentityUser` to `serviceAccount:<pool>[<namespace>/<ServiceAccount>]`
// (the upstream controller made that binding with Google's IAM API). Where the cluster runs
// Config Connector, kfx makes it as an `IAMPolicyMember` (iam.cnrm.cloud.google.com/v1beta1),
// owned by the Profile, in a namespace Config Connector manages and no Profile may use: removing
// the plugin or deleting the Profile deletes the object, and Config Connector then removes the
// binding. Tenants never write there, so the binding is exactly the one the ceilings allow.
import type { KubeObject } from '@kfx/kube-runtime/client';
import { z } from 'zod';
import { dnsLabel } from './schemas.js';

export const IAM_POLICY_MEMBER = {
  apiVersion: 'iam.cnrm.cloud.google.com/v1beta1',
  kind: 'IAMPolicyMember',
} as const;

/** The role that lets a Kubernetes ServiceAccount act as the Google service account. */
const WORKLOAD_IDENTITY_USER = 'roles/iam.workloadIdentityUser';

/** Marks what kfx made for a Profile's plugin (deleted first when the Profile goes). */
export const PLUGIN_LABEL = 'kfx.dev/plugin';

const POOL = /^[a-z][-a-z0-9]{4,28}[a-z0-9]\.svc\.id\.goog$/;

export const workloadIdentitySchema = z
  .strictObject({
    /**
     * Who lets the namespace's ServiceAccount act as the Google service account of a
     * `WorkloadIdentity` plugin: `report` (nobody: the Profile's condition says what is missing),
     * `external` (the site does, e.g. with Terraform), `config-connector` (kfx makes an
     * IAMPolicyMember that Config Connector applies).
     */
    binding: z.enum(['report', 'external', 'config-connector']).default('report'),
    /** The cluster's workload identity pool, `<project>.svc.id.goog`. */
    pool: z
      .string()
      .regex(POOL, 'expected the workload identity pool, <project>.svc.id.goog')
      .optional(),
    /** Where the IAMPolicyMembers go: a namespace Config Connector manages (no Profile's). */
    namespace: dnsLabel.optional(),
  })
  .superRefine((config, context) => {
    if (config.binding !== 'config-connector') return;
    for (const key of ['pool', 'namespace'] as const) {
      if (config[key] === undefined) {
        context.addIssue({
          code: 'custom',
          path: [key],
          message: `binding: config-connector needs ${key === 'pool' ? 'the workload identity pool (<project>.svc.id.goog)' : 'the namespace Config Connector manages, where the IAMPolicyMembers go'}`,
        });
      }
    }
  })
  .prefault({});

/** The project of a Google service account: `name@<project>.iam.gserviceaccount.com`. */
const projectOf = (account: string) => /@([^.]+)\./.exec(account)?.[1] ?? '';

/**
 * The IAMPolicyMember that lets `<namespace>/<serviceAccount>` act as `account`, one per
 * Profile (a ServiceAccount carries one Google identity).
 */
export function workloadIdentityBinding(
  config: { pool: string; namespace: string },
  profileNamespace: string,
  serviceAccount: string,
  account: string,
): KubeObject {
  return {
    ...IAM_POLICY_MEMBER,
    metadata: {
      name: `${profileNamespace}-workload-identity`,
      namespace: config.namespace,
      labels: { [PLUGIN_LABEL]: 'WorkloadIdentity' },
    },
    spec: {
      member: `serviceAccount:${config.pool}[${profileNamespace}/${serviceAccount}]`,
      role: WORKLOAD_IDENTITY_USER,
      resourceRef: {
        apiVersion: 'iam.cnrm.cloud.google.com/v1beta1',
        kind: 'IAMServiceAccount',
        external: `projects/${projectOf(account)}/serviceAccounts/${account}`,
      },
    },
  } as KubeObject;
}
