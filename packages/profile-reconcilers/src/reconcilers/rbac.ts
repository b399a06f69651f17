// `rbac`: RoleBindings from a configured list, e.g. support groups → ClusterRole
// `profile-support`, or the Profile's owner → `kubeflow-admin` where the upstream Kubeflow
// profile controller does not run. Subject names and annotation values may hold `{{ … }}` holes
// (`system:serviceaccounts:{{ profile.namespace }}`). Kubeflow's access management (KFAM) and the
// central dashboard find a user's namespaces only through bindings annotated `user` and `role`,
// each with exactly one subject (one with more makes KFAM fail the whole listing), so such a
// binding is refused at start unless it has one subject. The owner's binding to `kubeflow-admin`
// (upstream's `namespaceAdmin`) gets KFAM's annotations `user: <owner>`, `role: admin` unless
// told not to (`kfamAnnotations: false`): without them the dashboard sends the owner to
// registration. A binding of people to a `kubeflow-*` role without those annotations is invisible
// to KFAM and the dashboard, which every Profile's condition says.
import { resources, type KubeObject } from '@kfx/kube-runtime/client';
import type { RbacV1Subject, V1RoleBinding } from '@kubernetes/client-node';
import { z } from 'zod';
import { profileNamespace, type Profile } from '../profile.js';
import type { Problem, ProfileReconciler } from '../reconciler.js';
import { labelKey, rbacName } from '../schemas.js';
import { TemplateError } from '../templates/template-error.js';
import {
  compileText,
  renderText,
  templateValues,
  type CompiledText,
} from '../templates/template-text.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** What KFAM reads from a binding: whose it is, and which role (admin, edit, view). */
const KFAM_ANNOTATIONS = ['user', 'role'];
/** The ClusterRoles of Kubeflow's roles start so; KFAM maps them to admin, edit and view. */
const KUBEFLOW_ROLE = 'kubeflow-';
const OWNER_ROLE = 'kubeflow-admin';
const subjectCount = (b: { subjects: unknown[]; owner: boolean }) =>
  b.subjects.length + (b.owner ? 1 : 0);

const subjectSchema = z.strictObject({
  kind: z.enum(['User', 'Group', 'ServiceAccount']),
  name: z.string().min(1),
  /** For ServiceAccount subjects; default the Profile's namespace. */
  namespace: z.string().min(1).optional(),
});

const bindingSchema = z
  .strictObject({
    name: rbacName,
    /** Bind this ClusterRole… */
    clusterRole: rbacName.optional(),
    /** …or this Role of the Profile's namespace. */
    role: rbacName.optional(),
    subjects: z.array(subjectSchema).default([]),
    /** Also bind the Profile's owner (spec.owner). */
    owner: z.boolean().default(false),
    /** Annotations on the binding (values may hold holes): KFAM's `user` and `role`. */
    annotations: z.record(labelKey, z.string()).default({}),
    /**
     * The owner's binding to kubeflow-admin (no other subject) gets KFAM's annotations
     * `user: {{ owner.name }}` and `role: admin` where `annotations` does not set them.
     */
    kfamAnnotations: z.boolean().default(true),
  })
  .refine((b) => (b.clusterRole === undefined) !== (b.role === undefined), {
    message: 'set exactly one of clusterRole and role',
  })
  .refine((b) => b.owner || b.subjects.length > 0, {
    message: 'a binding needs subjects, owner: true, or both',
  })
  .superRefine((b, context) => {
    const count = subjectCount(b);
    if (KFAM_ANNOTATIONS.some((key) => key in b.annotations) && count !== 1) {
      context.addIssue({
        code: 'custom',
        path: ['annotations'],
        message: `a binding annotated ${KFAM_ANNOTATIONS.join(' or ')} is read by Kubeflow's access management, which fails on one without exactly one subject; this one has ${count}`,
      });
    }
  });

const rbacConfigSchema = z.strictObject({
  bindings: z
    .array(bindingSchema)
    .min(1, 'list at least one binding')
    .refine((list) => new Set(list.map((b) => b.name)).size === list.length, {
      message: 'binding names must be unique',
    }),
});

export type RbacConfig = z.infer<typeof rbacConfigSchema>;
type Binding = RbacConfig['bindings'][number];

export interface PreparedRbac {
  bindings: (Binding & { names: CompiledText[]; annotationValues: [string, CompiledText][] })[];
}

/** The binding's annotations, with KFAM's for the owner's kubeflow-admin binding. */
function withKfamAnnotations(binding: Binding): Record<string, string> {
  const ownerOnly = binding.owner && binding.subjects.length === 0;
  if (!binding.kfamAnnotations || !ownerOnly || binding.clusterRole !== OWNER_ROLE) {
    return binding.annotations;
  }
  return { user: '{{ owner.name }}', role: 'admin', ...binding.annotations };
}

/** Why KFAM and the dashboard do not see a binding of people to a Kubeflow role, if so. */
function invisibleToKfam(binding: V1RoleBinding): string | undefined {
  const role = binding.roleRef.kind === 'ClusterRole' ? binding.roleRef.name : '';
  if (!role.startsWith(KUBEFLOW_ROLE)) return undefined;
  const people = (binding.subjects ?? []).filter((s) => s.kind === 'User' || s.kind === 'Group');
  if (people.length === 0) return undefined;
  const annotations = binding.metadata?.annotations ?? {};
  const missing = KFAM_ANNOTATIONS.filter((key) => annotations[key] === undefined);
  if (missing.length === 0) return undefined;
  const count = binding.subjects?.length ?? 0;
  const fix =
    count === 1
      ? 'annotate it user and role'
      : `give it one subject (it has ${count}) and annotate it user and role`;
  return `RoleBinding ${binding.metadata?.name ?? ''} binds ClusterRole ${role} without Kubeflow's access-management annotation${missing.length > 1 ? 's' : ''} ${missing.join(' and ')}: KFAM and the dashboard do not list ${people.map((p) => `${p.kind} ${p.name}`).join(', ')} (${fix})`;
}

function ownerSubject(profile: Profile): RbacV1Subject | undefined {
  const owner = profile.spec?.owner;
  if (!owner?.kind || !owner.name) return undefined;
  if (owner.kind === 'ServiceAccount') {
    return {
      kind: owner.kind,
      name: owner.name,
      namespace: owner.namespace ?? profileNamespace(profile),
    };
  }
  return { kind: owner.kind, name: owner.name, apiGroup: owner.apiGroup ?? RBAC_GROUP };
}

function bindingFor(
  profile: Profile,
  binding: PreparedRbac['bindings'][number],
  problems: Problem[],
): KubeObject | undefined {
  const namespace = profileNamespace(profile);
  const values = templateValues(profile);
  const subjects: RbacV1Subject[] = [];
  for (const [i, subject] of binding.subjects.entries()) {
    const template = binding.names[i];
    if (!template) continue;
    try {
      const name = renderText(template, values);
      subjects.push(
        subject.kind === 'ServiceAccount'
          ? { kind: subject.kind, name, namespace: subject.namespace ?? namespace }
          : { kind: subject.kind, name, apiGroup: RBAC_GROUP },
      );
    } catch (error) {
      if (!(error instanceof TemplateError)) throw error;
      problems.push({ message: `RoleBinding ${binding.name}: ${error.message}` });
    }
  }
  if (binding.owner) {
    const owner = ownerSubject(profile);
    if (owner) subjects.push(owner);
    else
      problems.push({
        message: `RoleBinding ${binding.name}: the Profile has no spec.owner to bind`,
      });
  }
  if (subjects.length === 0) return undefined;
  const annotations: Record<string, string> = {};
  for (const [key, template] of binding.annotationValues) {
    try {
      annotations[key] = renderText(template, values);
    } catch (error) {
      if (!(error instanceof TemplateError)) throw error;
      problems.push({ message: `RoleBinding ${binding.name}: ${error.message}` });
      return undefined;
    }
  }
  const roleBinding: V1RoleBinding = {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'RoleBinding',
    metadata: {
      name: binding.name,
      namespace,
      ...(binding.annotationValues.length > 0 ? { annotations } : {}),
    },
    roleRef: binding.clusterRole
      ? { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: binding.clusterRole }
      : { apiGroup: RBAC_GROUP, kind: 'Role', name: binding.role ?? '' },
    subjects,
  };
  return roleBinding;
}

export const rbacReconciler: ProfileReconciler<RbacConfig, PreparedRbac> = {
  name: 'rbac',
  configSchema: rbacConfigSchema,
  prepare: (config, env) => ({
    bindings: config.bindings.map((binding, b) => ({
      ...binding,
      names: binding.subjects.map((subject, s) =>
        compileText(subject.name, `${env.key}.bindings.${b}.subjects.${s}.name`),
      ),
      annotationValues: Object.entries(withKfamAnnotations(binding)).map(
        ([key, value]): [string, CompiledText] => [
          key,
          compileText(value, `${env.key}.bindings.${b}.annotations.${key}`),
        ],
      ),
    })),
  }),
  kinds: () => [{ apiVersion: `${RBAC_GROUP}/v1`, kind: resources.roleBindings.kind }],
  desired(profile, { config }) {
    const problems: Problem[] = [];
    const objects: KubeObject[] = [];
    let incomplete = false;
    for (const binding of config.bindings) {
      const before = problems.length;
      const object = bindingFor(profile, binding, problems);
      if (problems.length > before) incomplete = true;
      if (!object) continue;
      objects.push(object);
      const invisible = invisibleToKfam(object as V1RoleBinding);
      if (invisible) problems.push({ message: invisible, reason: 'NotVisibleToKfam' });
    }
    return { objects, problems, incomplete };
  },
};
