// A real node makes a cluster a user would recognise: pods reach the apiserver through the
// `kubernetes` Service with their service account (the way client-go's in-cluster configuration
// does, here kubectl's), find Services as `<service>.<namespace>` through the cluster DNS and reach
// them through kube-proxy, whether the backend is a pod or a server on the host (which then sees
// the pod's own address). Nothing here sets KUBERNETES_SERVICE_HOST or hostAliases. On the
// oldest minor too (vitest.config.ts), where the node's kubelet and kube-proxy are that minor's:
// never newer than their API server. Owns its plane: a real node.
import { CoreV1Api, DiscoveryV1Api, type V1Service } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBinaries } from '../binaries.js';
import { startControlPlane, type ControlPlane } from '../control-plane.js';
import { applyManifests } from '../objects.js';
import { API_SERVICE_IP } from '../pki.js';
import { CLUSTER_DNS_IP } from './cluster-dns.js';
import { applyHostService } from './host-service.js';
import { startOrigin } from './origin.js';
import { logOf, pod, podIn, shellPod, support, title } from './test-pods.js';

describe.skipIf(!support.available)(title('Services and cluster DNS on a real node'), () => {
  let env: ControlPlane;
  let image = '';
  const run = async (name: string, script: string, namespace = 'default') => {
    await applyManifests(env.kubeconfigPath, shellPod(name, image, script, { namespace }));
    const done = await podIn(env, name, namespace);
    return { pod: done, log: await logOf(env, name, namespace) };
  };

  beforeAll(async () => {
    env = await startControlPlane({ components: ['node'] });
    const { kubectl } = requireBinaries(['kubectl']);
    image = await (
      env.node ?? { loadShellImage: () => Promise.reject(new Error('no node')) }
    ).loadShellImage({
      name: 'kfx.test/tools:1',
      entries: [
        { path: '/usr/bin/kubectl', type: 'copy', source: kubectl, mode: 0o755 },
        { path: '/bin/httpd', type: 'symlink', target: 'busybox' },
        { path: '/bin/nslookup', type: 'symlink', target: 'busybox' },
        { path: '/www/index.html', content: 'hello from web.team\n', mode: 0o644 },
      ],
    });
    await applyManifests(env.kubeconfigPath, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team' },
    });
  });
  afterAll(async () => {
    await env.stop();
  });

  it('runs a kubelet of the API server’s minor (the version-skew policy)', async () => {
    const nodes = await env.kubeConfig.makeApiClient(CoreV1Api).listNode();
    const minorOf = (version = '') => /^v(\d+\.\d+)\./.exec(version)?.[1];
    expect(nodes.items).toHaveLength(1);
    expect(minorOf(nodes.items[0]?.status?.nodeInfo?.kubeletVersion)).toBe(
      minorOf(env.kubernetesVersion),
    );
  });

  it('gives pods the apiserver through the kubernetes Service, with their service account', async () => {
    const slices = await env.kubeConfig.makeApiClient(DiscoveryV1Api).listNamespacedEndpointSlice({
      namespace: 'default',
      labelSelector: 'kubernetes.io/service-name=kubernetes',
    });
    const apiPort = Number(new URL(env.server).port);
    expect(slices.items[0]?.endpoints?.[0]?.addresses).toEqual([env.node?.hostIp]);
    expect(slices.items[0]?.ports?.[0]?.port).toBe(apiPort);

    const { pod: done, log } = await run(
      'in-cluster',
      'echo "$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT"; kubectl auth whoami -o jsonpath="{.status.userInfo.username}"',
    );
    expect(done.status?.phase, log).toBe('Succeeded');
    expect(log).toBe(`${API_SERVICE_IP}:443\nsystem:serviceaccount:default:default`);
  });

  it('resolves <service>.<namespace> and reaches a pod behind it through kube-proxy', async () => {
    await applyManifests(env.kubeconfigPath, [
      pod(
        'web',
        {
          restartPolicy: 'Always',
          containers: [
            {
              name: 'httpd',
              image,
              imagePullPolicy: 'Never',
              command: ['httpd', '-f', '-p', '8080', '-h', '/www'],
            },
          ],
        },
        { namespace: 'team', labels: { app: 'web' } },
      ),
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'web', namespace: 'team' },
        spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] },
      } as V1Service,
    ]);
    await podIn(env, 'web', 'team', ['Running']);
    await env.node?.serviceRouted('team', 'web');
    const { pod: done, log } = await run('client', 'cat /etc/resolv.conf; fetch http://web.team/');
    expect(done.status?.phase, log).toBe('Succeeded');
    expect(log).toContain(`nameserver ${CLUSTER_DNS_IP}\n`);
    expect(log).toMatch(/hello from web\.team\n$/);
  });

  it('reaches a server on the host by a Service name; the server sees the pod', async () => {
    const node = env.node;
    if (!node) throw new Error('no node');
    const origin = await startOrigin([node.hostIp]);
    try {
      await applyHostService(env.kubeconfigPath, {
        namespace: 'team',
        name: 'origin',
        ip: node.hostIp,
        ports: [{ port: 80, targetPort: origin.port }],
      });
      await node.serviceRouted('team', 'origin');
      const { pod: done, log } = await run('to-host', 'fetch http://origin.team/from-pod');
      expect(done.status?.phase, log).toBe('Succeeded');
      expect(log).toBe('hello from the origin\n');
      expect(origin.hits).toEqual([{ from: done.status?.podIP, path: '/from-pod' }]);
    } finally {
      await origin.close();
    }
  });

  it('answers the cluster zones and refuses every other name (nothing is forwarded)', async () => {
    const { log } = await run(
      'lookups',
      'nslookup kubernetes.default.svc.cluster.local; nslookup example.com || true',
    );
    expect(log).toMatch(
      new RegExp(
        `Name:\\s+kubernetes\\.default\\.svc\\.cluster\\.local\\s+Address:\\s+${API_SERVICE_IP.replaceAll('.', '\\.')}`,
      ),
    );
    expect(log).toContain("can't find example.com: REFUSED");
    const dns = await env.kubeConfig.makeApiClient(CoreV1Api).readNamespacedService({
      name: 'kube-dns',
      namespace: 'kube-system',
    });
    expect(dns.spec?.clusterIP).toBe(CLUSTER_DNS_IP);
  });
});
