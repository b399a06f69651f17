import { describe, expect, it } from 'vitest';
import { resolveNamespaceLabels, type NamespaceLabelPlan } from './namespace-labels.js';

const plan: NamespaceLabelPlan = {
  defaults: {
    'istio-injection': 'enabled',
    'katib.kubeflow.org/metrics-collector-injection': 'enabled',
  },
  remove: ['serving.kubeflow.org/inferenceservice'],
  enforced: ['pipelines.kubeflow.org/enabled'],
};
const own = {
  'pipelines.kubeflow.org/enabled': 'true',
  'pod-security.kubernetes.io/enforce': 'baseline',
};

describe('the labels of a Profile namespace', () => {
  it('are all set on a namespace still to be made', () => {
    expect(resolveNamespaceLabels(own, plan, undefined)).toEqual({
      labels: { ...plan.defaults, ...own },
      kept: [],
      remove: [],
      reverted: [],
    });
  });

  it('never overwrite a default someone changed, keep asserting one kfx set, and remove ""', () => {
    const live = {
      'istio-injection': 'disabled',
      'katib.kubeflow.org/metrics-collector-injection': 'enabled',
      'serving.kubeflow.org/inferenceservice': 'enabled',
      'pipelines.kubeflow.org/enabled': 'false',
    };
    expect(resolveNamespaceLabels(own, plan, live)).toEqual({
      // Still asserted: kfx stays an owner of the value it set, so nothing is removed.
      labels: { 'katib.kubeflow.org/metrics-collector-injection': 'enabled', ...own },
      kept: [{ key: 'istio-injection', from: 'disabled', to: 'enabled' }],
      remove: ['serving.kubeflow.org/inferenceservice'],
      // Enforced: put back, and told.
      reverted: [{ key: 'pipelines.kubeflow.org/enabled', from: 'false', to: 'true' }],
    });
  });

  it('let an enforced label win over a default of the same key', () => {
    const both: NamespaceLabelPlan = { defaults: { a: '1' }, remove: ['a'], enforced: ['a'] };
    expect(resolveNamespaceLabels({ a: '2' }, both, { a: '3' })).toEqual({
      labels: { a: '2' },
      kept: [{ key: 'a', from: '3', to: '1' }],
      remove: [],
      reverted: [{ key: 'a', from: '3', to: '2' }],
    });
  });
});
