// The in-cluster half of a Profile's `spec.plugins`, as the upstream Kubeflow profile controller
// applies them: a cloud identity for the namespace's workloads, given by an annotation on the
// ServiceAccount they run as (`default-editor`). `WorkloadIdentity` (GKE) names a Google service
// account, `AwsIamForServiceAccount` (EKS) an IAM role. Upstream also edits the cloud side: the
// IAM role's trust policy unless `annotateOnly` is set, the Google service account's
// `roles/iam.workloadIdentityUser` binding of `<pool>[<namespace>/default-editor]`. kfx never
// calls a cloud API, so each says so in the Profile's condition until it is handled: the AWS
// trust policy by the Profile (`annotateOnly: true`), the Google binding by the site
// (`workloadIdentity.binding: external`) or declaratively by kfx through Config Connector
// (`config-connector`, workload-identity.ts). Whoever writes the Profile names the identity, so
// only one `ceilings.cloudIdentities` allows for this Profile is applied: a pattern bound to its
// name, or one given to it by name.
import { identityAllowed, type Ceilings } from './ceilings.js';
import type { Problem } from './reconciler.js';
import type { Profile } from './profile.js';

const GCP_SERVICE_ACCOUNT_ANNOTATION = 'iam.gke.io/gcp-service-account';
const AWS_ROLE_ANNOTATION = 'eks.amazonaws.com/role-arn';

const GCP_SERVICE_ACCOUNT = /^[a-z][-a-z0-9]{4,28}[a-z0-9]@[-a-z0-9.]+\.iam\.gserviceaccount\.com$/;
const AWS_ROLE_ARN = /^arn:aws(-cn|-us-gov)?:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/;

/** Who binds the Google service account to the namespace's ServiceAccount. */
type GcpBinding = 'report' | 'external' | 'config-connector';

export interface PluginOptions {
  /** The ServiceAccount the identity is given to (`default-editor`). */
  serviceAccount: string;
  ceilings: Ceilings;
  /** Default `report`: nobody, said in the condition. */
  gcpBinding?: GcpBinding | undefined;
  /** The cluster's workload identity pool, `<project>.svc.id.goog`, when known. */
  pool?: string | undefined;
}

export interface PluginIdentities {
  annotations: Record<string, string>;
  problems: Problem[];
  /** The Google service account applied, for the binding kfx makes (config-connector). */
  gcpServiceAccount?: string | undefined;
}

interface Plugin {
  kind?: unknown;
  spec?: Record<string, unknown> | undefined;
}

const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * The annotations the Profile's plugins put on the ServiceAccount, the Google service account to
 * bind, and what could not be honoured or is left to someone else.
 */
export function pluginIdentities(profile: Profile, options: PluginOptions): PluginIdentities {
  const { serviceAccount, ceilings } = options;
  const annotations: Record<string, string> = {};
  const problems: Problem[] = [];
  let gcpServiceAccount: string | undefined;
  const plugins = (profile.spec?.plugins ?? []) as Plugin[];
  const namespace = profile.metadata?.name ?? '';
  const beyond = (where: string, field: string, identity: string, key: string) => {
    problems.push({
      reason: 'CeilingExceeded',
      message: `${where}: ${field} ${identity} not applied: beyond the ceiling ceilings.cloudIdentities.${key} (no pattern there, nor profiles.${namespace}.${key}, gives it to Profile ${namespace})`,
    });
  };
  for (const [i, plugin] of plugins.entries()) {
    const where = `spec.plugins[${i}]`;
    const spec = plugin.spec ?? {};
    if (plugin.kind === 'WorkloadIdentity') {
      const account = spec.gcpServiceAccount;
      if (typeof account !== 'string' || !GCP_SERVICE_ACCOUNT.test(account)) {
        problems.push({
          message: `${where} (WorkloadIdentity): spec.gcpServiceAccount ${text(account)} is not a Google service account (name@project.iam.gserviceaccount.com)`,
        });
        continue;
      }
      if (!identityAllowed(ceilings, namespace, 'gcpServiceAccounts', account)) {
        beyond(
          `${where} (WorkloadIdentity)`,
          'spec.gcpServiceAccount',
          account,
          'gcpServiceAccounts',
        );
        continue;
      }
      annotations[GCP_SERVICE_ACCOUNT_ANNOTATION] = account;
      gcpServiceAccount = account;
      const binding = options.gcpBinding ?? 'report';
      if (binding === 'report') {
        problems.push({
          message: `${where} (WorkloadIdentity): ServiceAccount ${serviceAccount} is annotated, but kfx does not edit IAM: Google service account ${account} must give roles/iam.workloadIdentityUser to serviceAccount:${options.pool ?? '<project>.svc.id.goog'}[${namespace}/${serviceAccount}] (namespace.workloadIdentity.binding: external once the site does, or config-connector to have kfx make a Config Connector IAMPolicyMember for it)`,
        });
      }
    } else if (plugin.kind === 'AwsIamForServiceAccount') {
      const role = spec.awsIamRole;
      if (typeof role !== 'string' || !AWS_ROLE_ARN.test(role)) {
        problems.push({
          message: `${where} (AwsIamForServiceAccount): spec.awsIamRole ${text(role)} is not an IAM role ARN (arn:aws:iam::<account>:role/<name>)`,
        });
        continue;
      }
      if (!identityAllowed(ceilings, namespace, 'awsIamRoles', role)) {
        beyond(`${where} (AwsIamForServiceAccount)`, 'spec.awsIamRole', role, 'awsIamRoles');
        continue;
      }
      annotations[AWS_ROLE_ANNOTATION] = role;
      if (spec.annotateOnly !== true) {
        problems.push({
          message: `${where} (AwsIamForServiceAccount): ServiceAccount ${serviceAccount} is annotated, but kfx does not edit IAM: the role's trust policy must allow system:serviceaccount:${namespace}:${serviceAccount} (set spec.annotateOnly: true once it does)`,
        });
      }
    } else {
      problems.push({
        message: `${where}: kind ${text(plugin.kind)} is not a plugin kfx applies (WorkloadIdentity, AwsIamForServiceAccount)`,
      });
    }
  }
  return { annotations, problems, ...(gcpServiceAccount ? { gcpServiceAccount } : {}) };
}
