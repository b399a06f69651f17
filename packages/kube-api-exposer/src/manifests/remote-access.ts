// The rights the door needs in each namespace of remote workloads, and only there: read a Pod
// (where it runs, its uid, its ServiceAccount) and request a token for a ServiceAccount bound
// to one of its Pods. A Role and a RoleBinding per namespace, never a ClusterRole: the proxy
// can mint no token elsewhere. (The keys that sign tokens are public to every ServiceAccount.)
// With `interlinkConfig`, one more Role: read that one ConfigMap or Secret, by name.
import type { V1PolicyRule, V1Role, V1RoleBinding } from '@kubernetes/client-node';
import { labels, type ManifestSettings } from './settings.js';

const RBAC = 'rbac.authorization.k8s.io';

/** The name of the Role and RoleBinding in each namespace. */
const remoteAccessName = (s: Pick<ManifestSettings, 'name'>) => `${s.name}-remote-workloads`;

/** A Role of `rules` in `namespace`, bound to the proxy's ServiceAccount. */
function boundRole(
  s: ManifestSettings,
  name: string,
  namespace: string,
  rules: V1PolicyRule[],
): (V1Role | V1RoleBinding)[] {
  return [
    {
      apiVersion: `${RBAC}/v1`,
      kind: 'Role',
      metadata: { name, namespace, labels: labels(s) },
      rules,
    },
    {
      apiVersion: `${RBAC}/v1`,
      kind: 'RoleBinding',
      metadata: { name, namespace, labels: labels(s) },
      roleRef: { apiGroup: RBAC, kind: 'Role', name },
      subjects: [{ kind: 'ServiceAccount', name: s.name, namespace: s.namespace }],
    },
  ];
}

export function remoteAccess(s: ManifestSettings): (V1Role | V1RoleBinding)[] {
  const name = remoteAccessName(s);
  const interlink = s.interlinkConfig;
  return [
    ...s.remoteNamespaces.flatMap((namespace) =>
      boundRole(s, name, namespace, [
        { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
        { apiGroups: [''], resources: ['serviceaccounts/token'], verbs: ['create'] },
      ]),
    ),
    ...(interlink === undefined
      ? []
      : boundRole(s, `${s.name}-interlink-ca`, interlink.namespace, [
          {
            apiGroups: [''],
            resources: ['configmaps', 'secrets'],
            resourceNames: [interlink.name],
            verbs: ['get'],
          },
        ])),
  ];
}
