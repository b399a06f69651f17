// One release of one chart under test: the flags every helm call needs, the install command, the
// release's ReplicaSets, and the proof that bad values are refused without a trace. For the chart
// tests only (it asserts with vitest); not part of the package's exports.
import type { V1ReplicaSet } from '@kubernetes/client-node';
import { expect } from 'vitest';
import { listJson } from './cluster.js';
import { helm, helmOk, withValuesFile } from './helm.js';
import { difference, inventory, settledInventory } from './inventory.js';

export interface ChartRelease {
  /** `--namespace` and `--kubeconfig`, for any helm command on the release. */
  common: () => string[];
  install: (values: object, ...extra: string[]) => ReturnType<typeof helm>;
  replicaSets: () => Promise<V1ReplicaSet[]>;
  /**
   * Installs with each set of bad values and expects every install refused with its message,
   * then no release and no object left behind. Resolves with the cluster's inventory from
   * before, for the tests that follow (what an install added, what an uninstall must restore).
   */
  expectRefused: (cases: readonly [set: string[], message: RegExp][]) => Promise<string[]>;
}

/** `kubeconfig` is read at each call: the control plane behind it starts after this is made. */
export function chartRelease(
  chart: string,
  release: string,
  namespace: string,
  kubeconfig: () => string,
): ChartRelease {
  const common = () => ['--namespace', namespace, '--kubeconfig', kubeconfig()];
  const install = (values: object, ...extra: string[]) =>
    withValuesFile(values, (file) =>
      helm(['install', release, chart, ...common(), '--values', file, ...extra]),
    );
  return {
    common,
    install,
    replicaSets: () =>
      listJson<V1ReplicaSet>(
        kubeconfig(),
        ['replicasets', '-l', `app.kubernetes.io/instance=${release}`],
        namespace,
      ),
    async expectRefused(cases) {
      const before = await settledInventory(kubeconfig());
      for (const [set, message] of cases) {
        const result = await install({}, ...set);
        expect(result.code, set.join(' ')).not.toBe(0);
        expect(result.stderr, set.join(' ')).toMatch(message);
      }
      expect(await helmOk(['list', ...common(), '--all', '-q'])).toBe('');
      expect(difference(before, await inventory(kubeconfig()))).toEqual({ added: [], removed: [] });
      return before;
    },
  };
}
