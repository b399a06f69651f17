// Every object the cluster needs, in apply order (issuers before certificates, the Secret's
// Certificate before the Deployment that mounts it), as objects and as one YAML stream.
import { stringify } from 'yaml';
import { certificates } from './certificates.js';
import { ingress, service } from './exposure.js';
import type { ManifestSettings } from './settings.js';
import { deployment, podDisruptionBudget, serviceAccount } from './workload.js';

export function manifestObjects(s: ManifestSettings): object[] {
  const objects: (object | undefined)[] = [
    serviceAccount(s),
    ...certificates(s),
    deployment(s),
    podDisruptionBudget(s),
    service(s),
    ingress(s),
  ];
  return objects.filter((o): o is object => o !== undefined);
}

export function toYaml(objects: readonly object[]): string {
  return objects.map((o) => stringify(o, { lineWidth: 0 })).join('---\n');
}
