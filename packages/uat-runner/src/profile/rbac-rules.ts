// The rights `kfx uat run` and `kfx uat clean` use inside the test namespace, in one table: the
// ClusterRole the runner binds to itself there, the Role `kfx uat rbac -n` prints for an existing
// namespace, and the runner's own check of what it may do there are all made from it, so the
// three cannot disagree.
import type { V1PolicyRule } from '@kubernetes/client-node';

export const NAMESPACED_RULES: readonly V1PolicyRule[] = [
  // Within a RoleBinding's namespace, `get namespaces` reaches that one namespace only.
  { apiGroups: [''], resources: ['namespaces'], verbs: ['get'] },
  { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['get', 'create'] },
  // The suite's variables (proxy credentials among them); list finds a dead run's.
  { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'create', 'delete'] },
  { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] },
  { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] },
  { apiGroups: [''], resources: ['events'], verbs: ['list'] },
  {
    apiGroups: ['batch'],
    resources: ['jobs'],
    verbs: ['get', 'list', 'watch', 'create', 'delete'],
  },
];

/** One verb on one resource, as a SelfSubjectAccessReview asks it. */
export interface Right {
  group: string;
  resource: string;
  subresource?: string | undefined;
  verb: string;
}

export function rightsOf(rules: readonly V1PolicyRule[]): Right[] {
  return rules.flatMap((rule) =>
    (rule.apiGroups ?? ['']).flatMap((group) =>
      (rule.resources ?? []).flatMap((full) => {
        const [resource = full, subresource] = full.split('/');
        return rule.verbs.map((verb) => ({ group, resource, subresource, verb }));
      }),
    ),
  );
}

/** `create jobs.batch`, `get pods/log`: as `kubectl auth can-i` takes them. */
export function describeRight(right: Right): string {
  const resource = right.group === '' ? right.resource : `${right.resource}.${right.group}`;
  return `${right.verb} ${resource}${right.subresource ? `/${right.subresource}` : ''}`;
}
