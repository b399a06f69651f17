// The chart's ClusterRole lists the namespace reconciler's default ServiceAccounts (Helm cannot
// import the package's constant): held here to KUBEFLOW_SERVICE_ACCOUNTS, its one owner.
import { readFileSync } from 'node:fs';
import { KUBEFLOW_SERVICE_ACCOUNTS } from '@kfx/profile-reconcilers';
import { describe, expect, it } from 'vitest';

const template = readFileSync(
  new URL('../chart/templates/clusterrole.yaml', import.meta.url),
  'utf8',
);

describe("the chart's ClusterRole", () => {
  it("lists the namespace reconciler's default ServiceAccounts and roles as the package does", () => {
    const line = template.split('\n').find((l) => l.includes('{{- $accounts := list')) ?? '';
    const listed = [...line.matchAll(/dict "name" "([^"]+)" "clusterRole" "([^"]+)"/g)].map(
      ([, name, clusterRole]) => ({ name, clusterRole }),
    );
    expect(listed).toEqual(KUBEFLOW_SERVICE_ACCOUNTS);
  });
});
