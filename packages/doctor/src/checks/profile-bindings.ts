// Part of check `profiles`: the RoleBindings KFAM and the central dashboard read. They find a
// user's namespaces only through bindings to a `kubeflow-*` ClusterRole annotated `user` and
// `role`, each with one subject: an unannotated binding hides the namespace from that user, and
// an annotated one with several subjects makes KFAM fail the whole listing.
import { objectName, type Finding } from '../finding.js';
import type { Cluster } from '../cluster.js';
import type { RoleBinding } from '../objects.js';

const ROLES: Readonly<Record<string, string>> = {
  'kubeflow-admin': 'admin',
  'kubeflow-edit': 'edit',
  'kubeflow-view': 'view',
};

/** Findings for one binding in a Profile namespace (pure: the unit tests call it). */
export function bindingFindings(binding: RoleBinding): Finding[] {
  const { roleRef } = binding;
  if (roleRef.kind !== 'ClusterRole' || !roleRef.name.startsWith('kubeflow-')) return [];
  const people = (binding.subjects ?? []).filter((subject) => subject.kind !== 'ServiceAccount');
  // The ServiceAccounts' bindings (default-editor, default-viewer) are not KFAM's.
  if (people.length === 0) return [];
  const namespace = binding.metadata?.namespace ?? '';
  const name = binding.metadata?.name ?? '';
  const object = objectName('RoleBinding', name, namespace);
  const annotations = binding.metadata?.annotations ?? {};
  const user = annotations.user;
  const role = annotations.role;
  const subjects = binding.subjects ?? [];
  if (user !== undefined && role !== undefined) {
    if (subjects.length === 1) return [];
    return [
      {
        check: 'profiles',
        code: 'profiles.kfam-binding-subjects',
        severity: 'error',
        object,
        message: `annotated for KFAM but with ${subjects.length} subjects: KFAM fails the listing of every user's namespaces`,
        fix: `kubectl -n ${namespace} edit rolebinding ${name} (keep the subject ${user}; give the others bindings of their own)`,
      },
    ];
  }
  const subject = people[0]?.name ?? '<user>';
  const wanted = ROLES[roleRef.name] ?? roleRef.name.replace(/^kubeflow-/, '');
  return [
    {
      check: 'profiles',
      code: 'profiles.kfam-binding-unannotated',
      severity: 'warning',
      object,
      message: `binds ${subject} to ${roleRef.name} without KFAM's user and role annotations: the dashboard does not list ${namespace} for ${subject}`,
      fix: `kubectl -n ${namespace} annotate rolebinding ${name} user=${subject} role=${wanted}`,
    },
  ];
}

export async function profileBindingFindings(
  cluster: Cluster,
  profileNamespaces: ReadonlySet<string>,
): Promise<Finding[]> {
  const bindings = await cluster.roleBindings();
  return bindings
    .filter((binding) => profileNamespaces.has(binding.metadata?.namespace ?? ''))
    .flatMap(bindingFindings);
}
