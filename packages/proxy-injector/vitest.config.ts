import { kfxTest } from '@kfx/vitest-config';

// No shared control plane: proxy-injector proves the rendered namespaceSelector's exclusions and
// discovers every Node, injection-audit counts the Pods of every namespace; each integration file
// owns its plane (the reason is in its header).
export default kfxTest();
