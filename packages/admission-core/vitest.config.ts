import { kfxTest } from '@kfx/vitest-config';

// No shared control plane: admission proves the rendered namespaceSelector keeps kube-system out
// (narrowing it to a file's namespaces would hide that), so it owns its plane, and overload alone
// would gain nothing from one.
// admission (webhook registration and admission) runs on the oldest supported Kubernetes too.
export default kfxTest({ oldestMinor: ['src/admission.integration.test.ts'] });
