import { kfxTest } from '@kfx/vitest-config';

// No shared control plane: proxy-injector proves the rendered namespaceSelector's exclusions and
// discovers every Node, injection-audit counts the Pods of every namespace; each integration file
// owns its plane (the reason is in its header).
// The injector (admission, native sidecars, the network discovery that differs before 1.33) runs
// on the oldest supported Kubernetes too.
export default kfxTest({ oldestMinor: ['src/proxy-injector.integration.test.ts'] });
