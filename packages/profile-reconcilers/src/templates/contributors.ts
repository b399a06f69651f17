// The `contributors` of a Profile, as Kubeflow's access management (KFAM) and the Statistics
// Canada controller record them: RoleBindings in the Profile's namespace annotated
// `role: edit|view|admin` (and, from KFAM, `user: <email>`), each binding one User. The
// contributor is that subject, the one the binding gives access to: the namespace's owner
// writes the annotations as freely as the subjects, so an annotation naming someone the binding
// does not bind is nobody's contribution, and neither is a binding of several subjects (KFAM
// makes one subject per binding, and fails its whole listing on more). Such bindings are
// skipped and reported by name. A binding of one Group (KFAM's and the dashboard's group
// contributors, annotated `user: <group>`) is a group contributor, a list of its own: a
// template that lets in `contributors` by the user-id header must not let in a user who happens
// to be named like a group. Kubernetes' own groups (`system:…`, e.g. `system:authenticated`)
// are nobody's team and are skipped. Sorted, so that templates render the same list whatever
// order the cache holds the bindings in.
import type { KubeObject } from '@kfx/kube-runtime/client';
import type { ReadRef } from '../reconciler.js';

/** What a contributor's name may be at most; a longer annotation or subject is no user's. */
const MAX_NAME = 253;
/** Subjects the cache keeps per binding: one is a contributor's, a second says "several". */
const KEPT_SUBJECTS = 2;

const short = (text: unknown): text is string =>
  typeof text === 'string' && text.length > 0 && text.length <= MAX_NAME;

interface Subject {
  kind?: string | undefined;
  name?: string | undefined;
}

/** A RoleBinding as the cache keeps it. */
type Binding = KubeObject & { subjects?: Subject[] | undefined };

/**
 * The cache keeps of each RoleBinding (tenants write them, as large as they like) only what
 * contributorsFrom reads: the `role` and `user` annotations and the first two subjects' kinds
 * and names (a name longer than any user's is dropped, which makes the subject nobody's).
 */
export function contributorSkeleton(binding: KubeObject): KubeObject {
  const meta = binding.metadata ?? {};
  const { role, user } = meta.annotations ?? {};
  const subjects = ((binding as Binding).subjects ?? [])
    .slice(0, KEPT_SUBJECTS)
    .map(({ kind, name }) => ({
      kind: short(kind) ? kind : undefined,
      name: short(name) ? name : undefined,
    }));
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

/** A group the namespace is shared with (a binding of one Group). */
export interface GroupContributor {
  /** The group's name as the identity provider gives it, e.g. data-team. */
  group: string;
  role: string;
  binding: string;
}

/** A binding annotated as a contributor's that is not taken as one, and why. */
export interface SkippedBinding {
  binding: string;
  why: string;
}

export interface Contributors {
  contributors: Contributor[];
  groups: GroupContributor[];
  skipped: SkippedBinding[];
}

const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The contributor a binding annotated with a role names, or why it names none. */
function contributorOf(binding: Binding): { user: string } | { group: string } | { why: string } {
  const subjects = binding.subjects ?? [];
  if (subjects.length === 0) return { why: 'it binds no subject' };
  if (subjects.length > 1) {
    return { why: 'it binds several subjects (a contributor’s binding binds one)' };
  }
  const [subject] = subjects;
  const kind = subject?.kind;
  if ((kind !== 'User' && kind !== 'Group') || !subject?.name) {
    const what = `${kind ?? 'of no kind'}${subject?.name ? ` ${subject.name}` : ''}`;
    return { why: `its subject is ${what}, not a User or a Group` };
  }
  const annotated = binding.metadata?.annotations?.user;
  if (annotated !== undefined && annotated !== subject.name) {
    return { why: `it is annotated user ${annotated} but binds ${kind} ${subject.name}` };
  }
  if (kind === 'User') return { user: subject.name };
  if (subject.name.startsWith('system:')) {
    return { why: `it binds Group ${subject.name}, one of Kubernetes' own groups, not a team` };
  }
  return { group: subject.name };
}

export function contributorsFrom(bindings: readonly KubeObject[]): Contributors {
  const found = new Map<string, Contributor>();
  const groups = new Map<string, GroupContributor>();
  const skipped: SkippedBinding[] = [];
  const byName = [...(bindings as readonly Binding[])].sort((a, b) =>
    order(a.metadata?.name ?? '', b.metadata?.name ?? ''),
  );
  for (const binding of byName) {
    const meta = binding.metadata ?? {};
    const role = meta.annotations?.role;
    if (!role || meta.deletionTimestamp) continue;
    const name = meta.name ?? '';
    const named = contributorOf(binding);
    if ('why' in named) {
      skipped.push({ binding: name, why: named.why });
      continue;
    }
    if ('group' in named) {
      const key = `${named.group}\n${role}`;
      if (!groups.has(key)) groups.set(key, { group: named.group, role, binding: name });
      continue;
    }
    const key = `${named.user}\n${role}`;
    if (!found.has(key)) found.set(key, { user: named.user, role, binding: name });
  }
  const contributors = [...found.values()].sort(
    (a, b) => order(a.user, b.user) || order(a.role, b.role),
  );
  const byGroup = [...groups.values()].sort(
    (a, b) => order(a.group, b.group) || order(a.role, b.role),
  );
  return { contributors, groups: byGroup, skipped };
}

/** Bindings a report names at most; the rest are counted. */
const NAMED = 5;

/** One line for the Profile's condition and a Warning Event: which bindings, and why. */
export function skippedMessage(skipped: readonly SkippedBinding[]): string {
  const named = skipped.slice(0, NAMED).map((s) => `RoleBinding ${s.binding}: ${s.why}`);
  const more = skipped.length > NAMED ? `; and ${skipped.length - NAMED} more` : '';
  return `not taken as contributors: ${named.join('; ')}${more}`;
}
