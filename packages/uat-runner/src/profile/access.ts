// The runner's rights in the test namespace. Under the least-privilege RBAC (`kfx uat rbac`) it
// holds them only once it has bound its namespaced ClusterRole to itself there, which it can do
// only after the namespace exists: so it asks the API server what it may do
// (SelfSubjectAccessReviews, from the same table the printed roles are made of), binds itself
// when something is missing, and waits until the authorizer agrees. An identity that already has
// the rights (an admin, or a Role from `kfx uat rbac -n`) binds nothing.
import type { V1RoleBinding } from '@kubernetes/client-node';
import {
  isAlreadyExists,
  resources,
  type KubeClient,
  type KubeObject,
  type ResourceRef,
} from '@kfx/kube-runtime/client';
import { messageOf } from '@kfx/kube-runtime/serving';
import { LABELS, MANAGED_BY } from '../base/names.js';
import { UatError } from '../base/outcome.js';
import { pollUntil } from '../base/poll.js';
import { describeRight, NAMESPACED_RULES, rightsOf, type Right } from './rbac-rules.js';

const selfSubjectAccessReviews: ResourceRef = {
  group: 'authorization.k8s.io',
  version: 'v1',
  resource: 'selfsubjectaccessreviews',
  kind: 'SelfSubjectAccessReview',
  namespaced: false,
};

const selfSubjectReviews: ResourceRef = {
  group: 'authentication.k8s.io',
  version: 'v1',
  resource: 'selfsubjectreviews',
  kind: 'SelfSubjectReview',
  namespaced: false,
};

interface AccessReview extends KubeObject {
  spec: { resourceAttributes: Record<string, string | undefined> };
  status?: { allowed?: boolean };
}

interface SelfReview extends KubeObject {
  status?: { userInfo?: { username?: string; groups?: string[] } };
}

/** The rights of NAMESPACED_RULES the client lacks in `namespace`, as `create jobs.batch`. */
async function missingRights(client: KubeClient, namespace: string): Promise<string[]> {
  const rights = rightsOf(NAMESPACED_RULES);
  const allowed = await Promise.all(rights.map((right) => mayDo(client, namespace, right)));
  return rights.filter((_, i) => !allowed[i]).map(describeRight);
}

async function mayDo(client: KubeClient, namespace: string, right: Right): Promise<boolean> {
  const review = await client.create<AccessReview>(selfSubjectAccessReviews, {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    spec: {
      resourceAttributes: {
        namespace,
        verb: right.verb,
        group: right.group,
        resource: right.resource,
        subresource: right.subresource,
        // `get namespaces` is asked of the test namespace itself.
        name: right.resource === 'namespaces' ? namespace : undefined,
      },
    },
  });
  return review.status?.allowed === true;
}

/** The identity the API server sees (SelfSubjectReview). */
async function whoAmI(client: KubeClient): Promise<string> {
  const review = await client.create<SelfReview>(selfSubjectReviews, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'SelfSubjectReview',
  });
  const username = review.status?.userInfo?.username;
  if (!username) throw new UatError('the API server did not say who this client is');
  return username;
}

export interface AccessOptions {
  client: KubeClient;
  namespace: string;
  /** The ClusterRole to bind when rights are missing (`kfx uat rbac` prints it). */
  runnerRole: string;
  /** How long the authorizer may take to honour a new RoleBinding. Default 30 s. */
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
  onSaw?: ((saw: string) => void) | undefined;
}

/** Makes sure the client may do in `namespace` what a run does; true when it bound itself. */
export async function ensureAccess(options: AccessOptions): Promise<boolean> {
  const { client, namespace, runnerRole } = options;
  const missing = await missingRights(client, namespace);
  if (missing.length === 0) return false;
  const me = await whoAmI(client);
  options.onSaw?.(
    `${me} lacks ${missing.join(', ')} in namespace ${namespace}: binding ${runnerRole}`,
  );
  try {
    await client.create(resources.roleBindings, selfBinding(namespace, runnerRole, me));
  } catch (error) {
    if (!isAlreadyExists(error)) {
      throw new UatError(
        `${me} may not ${missing.join(', ')} in namespace ${namespace}, and binding the ClusterRole ${runnerRole} there failed: ${messageOf(error)}. ` +
          'Grant the rights `kfx uat rbac` prints (with -n for a run in an existing namespace)',
      );
    }
  }
  await pollUntil(
    async () => {
      const still = await missingRights(client, namespace);
      return still.length === 0
        ? { done: true, value: undefined }
        : { done: false, saw: `still missing ${still.join(', ')}` };
    },
    {
      timeoutMs: options.timeoutMs ?? 30_000,
      intervalMs: 250,
      signal: options.signal,
      timeoutMessage: (saw) =>
        `RoleBinding ${namespace}/${runnerRole} does not give ${me} the rights of the ClusterRole ${runnerRole}: ${saw}`,
    },
  );
  return true;
}

function selfBinding(namespace: string, role: string, username: string): V1RoleBinding {
  const account = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(username);
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    // No run id: every run of this identity shares it, and it goes with the namespace.
    metadata: { name: role, namespace, labels: { [LABELS.managedBy]: MANAGED_BY } },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [
      account?.[1] && account[2]
        ? { kind: 'ServiceAccount', namespace: account[1], name: account[2] }
        : { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: username },
    ],
  };
}
