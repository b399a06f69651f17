import { kfxTest } from '@kfx/vitest-config';

// No shared control plane: run restarts the API server, so it owns its plane, and rbac alone would
// gain nothing from one.
// The RBAC and its admission policy (Kubernetes 1.30+), and the refusal where the policy cannot
// be held, run on the oldest supported Kubernetes too; policy-support owns its plane (a flag).
export default kfxTest({
  oldestMinor: ['src/rbac.integration.test.ts', 'src/policy-support.integration.test.ts'],
});
