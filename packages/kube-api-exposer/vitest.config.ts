import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { kfxTest } from '@kfx/vitest-config';
// One control plane for the integration files that can share it, each in namespaces of its own
// (its cluster-scoped RBAC named after them and deleted after it). limits restarts the API
// server, so it owns its plane (the reason is in its header).
// What the files need of the shared plane: kwok, whose node serves `kubectl exec` from a local
// shell (proxy); an audit log, `audit.log` in the plane's folder (forwarded-headers); a request
// timeout that outlives slow bodies on a slow machine (slow-clients).
// Tokens minted through the TokenRequest API, the proxy in front of the API server (exec upgrades,
// watches) and the rendered manifests run on the oldest supported Kubernetes too.
export default kfxTest({
  controlPlane: {
    components: ['kwok'],
    kwokConfig: [
      {
        apiVersion: 'kwok.x-k8s.io/v1alpha1',
        kind: 'ClusterExec',
        metadata: { name: 'local-shell' },
        spec: { execs: [{ local: { workDir: tmpdir() } }] },
      },
      {
        apiVersion: 'config.kwok.x-k8s.io/v1alpha1',
        kind: 'KwokConfiguration',
        options: { enableDebuggingHandlers: true },
      },
    ],
    apiServerFlags: [
      `--audit-policy-file=${fileURLToPath(new URL('src/testing/audit-policy.yaml', import.meta.url))}`,
      '--audit-log-path=audit.log',
      '--request-timeout=10m',
    ],
  },
  oldestMinor: [
    'src/commands/commands.integration.test.ts',
    'src/proxy/proxy.integration.test.ts',
    'src/manifests/manifests.integration.test.ts',
  ],
});
