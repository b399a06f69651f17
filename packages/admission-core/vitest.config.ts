import { kfxTest } from '@kfx/vitest-config';

// One control plane for overload and unread-answers, each in a namespace of its own, its webhook
// configuration named after it and scoped to it. admission proves the rendered namespaceSelector
// keeps kube-system out (narrowing it to a file's namespaces would hide that), and client-auth
// starts the apiserver with an admission configuration of its own: both own their planes (the
// reason is in each header).
// admission (webhook registration and admission) runs on the oldest supported Kubernetes too, on
// a plane of its own: no shared plane of that minor.
export default kfxTest({
  controlPlane: { oldestMinor: false },
  oldestMinor: ['src/admission.integration.test.ts'],
});
