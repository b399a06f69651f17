// The benchmark's workload: Profiles, the objects the controller would make for them (for the
// raw loops), and small helpers to read Prometheus text.
import { enableBuiltInReconcilers } from '@kfx/profile-reconcilers';
import { resources, type KubeObject } from '@kfx/kube-runtime/client';

export const profileBody = (name: string) => ({
  apiVersion: 'kubeflow.org/v1',
  kind: 'Profile',
  metadata: { name },
  spec: { owner: { kind: 'User', name: `${name}@example.com` } },
});

// The objects the controller makes, from the same reconcilers, marked like the controller's but
// with another managed-by value so the controller's caches never hold them.
const reconcilers = enableBuiltInReconcilers();
export function rawObjects(profile: KubeObject): KubeObject[] {
  return reconcilers.flatMap((reconciler) =>
    reconciler.desired(profile).objects.map((object) => ({
      ...object,
      metadata: {
        ...object.metadata,
        labels: {
          'app.kubernetes.io/managed-by': 'bench-raw',
          'kfx.dev/reconciler': reconciler.name,
        },
        ownerReferences: [
          {
            apiVersion: 'kubeflow.org/v1',
            kind: 'Profile',
            name: profile.metadata?.name ?? '',
            uid: profile.metadata?.uid ?? '',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
    })),
  );
}
export const refOf = (kind: string | undefined) =>
  kind === 'ResourceQuota' ? resources.resourceQuotas : resources.limitRanges;

export const metricSum = (
  text: string,
  name: string,
  filter: (labels: string) => boolean = () => true,
) =>
  text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .filter((line) => filter(line.slice(name.length, line.lastIndexOf(' '))))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
export const writeMethods = (labels: string) => /method="(POST|PUT|PATCH|DELETE)"/.test(labels);
