// The `contributors` of a Profile, as Kubeflow's access management (KFAM) and the Statistics
// Canada controller record them: RoleBindings in the Profile's namespace annotated
// `role: edit|view|admin` and `user: <email>`. A binding with a `role` annotation but no `user`
// annotation contributes its User subjects. Sorted, so that templates render the same list
// whatever order the cache holds the bindings in.
import type { KubeObject } from '@kfx/kube-runtime';
import type { ReadRef } from '../reconciler.js';

/** What a contributor's name may be at most; a longer annotation or subject is no user's. */
const MAX_NAME = 253;
/** Subjects kept per binding: KFAM's have one, an owner binding a few. */
const MAX_SUBJECTS = 16;

const short = (text: unknown): text is string =>
  typeof text === 'string' && text.length > 0 && text.length <= MAX_NAME;

/**
 * The cache keeps of each RoleBinding (tenants write them, as large as they like) only what
 * contributorsFrom reads: the `role` and `user` annotations and a few User subjects' names.
 */
export function contributorSkeleton(binding: KubeObject): KubeObject {
  const meta = binding.metadata ?? {};
  const { role, user } = meta.annotations ?? {};
  const subjects = ((binding as { subjects?: Subject[] }).subjects ?? [])
    .filter((s) => s.kind === 'User' && short(s.name))
    .slice(0, MAX_SUBJECTS)
    .map(({ kind, name }) => ({ kind, name }));
  return {
    apiVersion: binding.apiVersion,
    kind: binding.kind,
    metadata: {
      name: meta.name,
      namespace: meta.namespace,
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
      deletionTimestamp: meta.deletionTimestamp,
      // A binding whose names are too long for anyone's is nobody's contribution.
      ...(short(role) && (user === undefined || short(user))
        ? { annotations: { role, ...(user === undefined ? {} : { user }) } }
        : {}),
    },
    ...(subjects.length > 0 ? { subjects } : {}),
  };
}

export const ROLE_BINDINGS_READ: ReadRef = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'RoleBinding',
  transform: contributorSkeleton,
};

export interface Contributor {
  /** The user's name as the identity header carries it, e.g. alice@example.com. */
  user: string;
  /** The `role` annotation: edit, view, admin… */
  role: string;
  /** The RoleBinding that says so. */
  binding: string;
}

interface Subject {
  kind?: string;
  name?: string;
}

export function contributorsFrom(bindings: readonly KubeObject[]): Contributor[] {
  const found = new Map<string, Contributor>();
  for (const binding of bindings) {
    const meta = binding.metadata ?? {};
    const role = meta.annotations?.role;
    if (!role || meta.deletionTimestamp) continue;
    const subjects = ((binding as { subjects?: Subject[] }).subjects ?? [])
      .filter((s) => s.kind === 'User' && s.name)
      .map((s) => s.name ?? '');
    const annotated = meta.annotations?.user;
    for (const user of annotated ? [annotated] : subjects) {
      const key = `${user}\n${role}`;
      if (!found.has(key)) found.set(key, { user, role, binding: meta.name ?? '' });
    }
  }
  const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...found.values()].sort((a, b) => order(a.user, b.user) || order(a.role, b.role));
}
