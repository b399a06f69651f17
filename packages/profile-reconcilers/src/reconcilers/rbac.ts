// `rbac`: RoleBindings from a configured list, e.g. support groups → ClusterRole
// `profile-support`, or the Profile's owner → `kubeflow-admin` where the upstream Kubeflow
// profile controller does not run. Subject names and annotation values may hold `{{ … }}` holes
// (`system:serviceaccounts:{{ profile.namespace }}`). Kubeflow's access management (KFAM) and the
// central dashboard find a user's namespaces only through bindings annotated `user` and `role`,
// each with exactly one subject (one with more makes KFAM fail the whole listing), so such a
// binding is refused at start unless it has one subject.
import { resources, type KubeObject } from '@kfx/kube-runtime';
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
      annotationValues: Object.entries(binding.annotations).map(
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
    for (const binding of config.bindings) {
      const object = bindingFor(profile, binding, problems);
      if (object) objects.push(object);
    }
    return { objects, problems, incomplete: problems.length > 0 };
  },
};
