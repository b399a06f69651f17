// Every object the cluster needs, in apply order (issuers before certificates, the Secret's
// Certificate before the Deployment that mounts it), as objects and as one YAML stream.
import { stringify } from 'yaml';
import { certificates } from './certificates.js';
import { ingress, service } from './exposure.js';
import type { ManifestSettings } from './settings.js';
import { remoteAccess } from './remote-access.js';
import { deployment, podDisruptionBudget, serviceAccount } from './workload.js';

export function manifestObjects(s: ManifestSettings): object[] {
  const objects: (object | undefined)[] = [
    serviceAccount(s),
    ...remoteAccess(s),
    ...certificates(s),
    deployment(s),
    podDisruptionBudget(s),
    service(s),
    ingress(s),
  ];
  return objects.filter((o): o is object => o !== undefined);
}

export function toYaml(objects: readonly object[]): string {
  // YAML 1.1 rules for strings: kubectl reads `off`, `yes`, `on` as booleans unless quoted (the
  // ingress-nginx annotations hold such values).
  return objects.map((o) => stringify(o, { lineWidth: 0, version: '1.1' })).join('---\n');
}
