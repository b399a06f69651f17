import { kfxTest } from '@kfx/vitest-config';

// The real node's Services and DNS run on the oldest supported Kubernetes too: there the node's
// kubelet and kube-proxy are that minor's (a kubelet may not be newer than its API server).
export default kfxTest({ oldestMinor: ['src/node/services.integration.test.ts'] });
