// The `contributors` of a Profile, as Kubeflow's access management (KFAM) and the Statistics
// Canada controller record them: RoleBindings in the Profile's namespace annotated
// `role: edit|view|admin` and `user: <email>`. A binding with a `role` annotation but no `user`
// annotation contributes its User subjects. Sorted, so that templates render the same list
// whatever order the cache holds the bindings in.
import type { KubeObject } from '@kfx/kube-runtime';
import type { ReadRef } from '../reconciler.js';

export const ROLE_BINDINGS_READ: ReadRef = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'RoleBinding',
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
