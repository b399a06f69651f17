// The remote node on a real control plane with the real node: a Node like interLink's virtual
// kubelet's, the seed's Job placed there by the scheduler, running for real in a network that
// reaches only the configured API address (here a NodePort echo Service standing in for the
// exposer), with interLink's service-account files and variables; status, `kubectl logs`, Job
// completion and deletion as a kubelet gives them; nothing left once it stops. Owns its plane.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  BatchV1Api,
  CoordinationV1Api,
  CoreV1Api,
  type V1EnvVar,
  type V1Pod,
  type V1Service,
} from '@kubernetes/client-node';
import { createCertificateAuthority } from '@kfx/dev-certs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBinaries } from '../binaries.js';
import { startControlPlane, type ControlPlane } from '../control-plane.js';
import { kubectlEntry } from '../node/images.js';
import { podIn, support, title } from '../node/test-pods.js';
import { applyManifests, kubectl } from '../objects.js';
import { cgroupPids } from '../node/teardown.js';
import { waitFor } from '../wait.js';
import { TOKEN_SECONDS } from './pod-files.js';
import { startRemoteNode, type RemoteNode } from './remote-node.js';
import { seedJob as interlinkSeedJob } from './seed-job.js';

const NAME = 'interlink-node';
const IMAGE = 'kfx.test/remote-tools:1';
const SA = '/var/run/secrets/kubernetes.io/serviceaccount';

/** The seed's Job on this file's remote node, in `default`, with its image. */
const seedJob = (name: string, script: string, env: V1EnvVar[] = []) =>
  interlinkSeedJob({ name, namespace: 'default', node: NAME, image: IMAGE, script, env });

/** Alive and not a zombie (PID 1 here may reap late). */
const running = (pid: number) => {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
};

const claims = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
    aud: string[];
    exp: number;
    iat: number;
    'kubernetes.io': { namespace: string; pod: { name: string; uid: string } };
  };

describe.skipIf(!support.available)(title('a remote node like interLink’s virtual kubelet'), () => {
  let env: ControlPlane;
  let remote: RemoteNode;
  let core: CoreV1Api;
  let nodePort = 0;
  const exposerCa = createCertificateAuthority({ commonName: 'a stand-in for the exposer’s CA' });

  beforeAll(async () => {
    env = await startControlPlane({ components: ['node'] });
    core = env.kubeConfig.makeApiClient(CoreV1Api);
    const node = env.node;
    if (!node) throw new Error('no node');
    // One image for both nodes: busybox, fetch, kubectl, an echo page.
    await node.loadShellImage({
      name: IMAGE,
      entries: [
        kubectlEntry(),
        { path: '/bin/httpd', type: 'symlink', target: 'busybox' },
        { path: '/www/index.html', content: 'hello from the echo\n' },
      ],
    });
    await applyManifests(env.kubeconfigPath, [
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'echo', namespace: 'default', labels: { app: 'echo' } },
        spec: {
          nodeName: 'kfx-node',
          containers: [
            {
              name: 'httpd',
              image: IMAGE,
              imagePullPolicy: 'Never',
              command: ['httpd', '-f', '-p', '8080', '-h', '/www'],
            },
          ],
        },
      } as V1Pod,
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'echo', namespace: 'default' },
        spec: {
          type: 'NodePort',
          selector: { app: 'echo' },
          ports: [{ port: 80, targetPort: 8080 }],
        },
      } as V1Service,
    ]);
    await podIn(env, 'echo', 'default', ['Running']);
    await node.serviceRouted('default', 'echo');
    const service = await core.readNamespacedService({ name: 'echo', namespace: 'default' });
    nodePort = service.spec?.ports?.[0]?.nodePort ?? 0;
    remote = await startRemoteNode(env, {
      kubernetesApiAddr: node.ip,
      kubernetesApiPort: nodePort,
      kubernetesApiCaCrt: exposerCa.cert,
    });
    await remote.loadShellImage({
      name: IMAGE,
      entries: [
        kubectlEntry(),
        { path: '/bin/httpd', type: 'symlink', target: 'busybox' },
        { path: '/www/index.html', content: 'hello from the echo\n' },
      ],
    });
  });
  afterAll(async () => {
    await env.stop(); // stops the remote node first, if a test has not
  });

  it('registers a Node as interLink’s: Ready, tainted, labelled, kept Ready by its Lease', async () => {
    const node = await core.readNode({ name: NAME });
    expect(node.metadata?.labels).toMatchObject({
      'kubernetes.io/hostname': NAME,
      type: 'virtual-kubelet',
      'kubernetes.io/role': 'agent',
    });
    expect(node.spec?.taints).toContainEqual({
      key: 'virtual-node.interlink/no-schedule',
      value: 'true',
      effect: 'NoSchedule',
    });
    expect(node.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(node.status?.capacity).toMatchObject({ cpu: '100', pods: '10k' });
    expect(node.status?.addresses).toContainEqual({
      type: 'InternalIP',
      address: env.node?.hostIp,
    });
    expect(node.status?.daemonEndpoints?.kubeletEndpoint?.Port).toBeGreaterThan(0);
    await expect(
      startRemoteNode(env, { kubernetesApiAddr: '10.0.0.1', kubernetesApiPort: 443 }),
    ).rejects.toThrow(`a remote node named ${NAME} already runs on this control plane`);
    // The heartbeat: its Lease is renewed (what kube-controller-manager watches).
    const leases = env.kubeConfig.makeApiClient(CoordinationV1Api);
    const first = await leases.readNamespacedLease({ name: NAME, namespace: 'kube-node-lease' });
    expect(first.spec?.holderIdentity).toBe(NAME);
    await waitFor(
      async () => {
        const now = await leases.readNamespacedLease({ name: NAME, namespace: 'kube-node-lease' });
        return String(now.spec?.renewTime) !== String(first.spec?.renewTime)
          ? { done: true, value: undefined }
          : { done: false, saw: String(now.spec?.renewTime) };
      },
      { description: 'the remote node to renew its Lease', timeoutMs: 60_000 },
    );
  });

  it('runs the seed’s Job on it, reaching the API address only, with interLink’s files', async () => {
    const node = env.node;
    if (!node) throw new Error('no node');
    const echo = await podIn(env, 'echo', 'default', ['Running']);
    const service = await core.readNamespacedService({ name: 'echo', namespace: 'default' });
    const apiServer = new URL(env.server).host;
    const unreachable = {
      apiserver: apiServer,
      pod: `${echo.status?.podIP ?? ''}:8080`,
      service: `${service.spec?.clusterIP ?? ''}:80`,
      kubelet: `${node.ip}:10250`,
    };
    const script = [
      'echo "api $KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT $KUBERNETES_PORT_443_TCP"',
      'echo "exposer $(fetch http://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT/ 2>&1)"',
      ...Object.entries(unreachable).map(
        ([what, target]) => `echo "${what} $(fetch http://${target}/ 2>&1)"`,
      ),
      `echo "namespace $(cat ${SA}/namespace)"`,
      `echo "token $(cat ${SA}/token)"`,
      `sed 's/^/ca /' ${SA}/ca.crt`,
      'echo "me $POD_NAME"',
    ].join('\n');
    await applyManifests(
      env.kubeconfigPath,
      seedJob('helloworld', script, [
        { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      ]),
    );
    await kubectl(env.kubeconfigPath, [
      'wait',
      '--for=condition=complete',
      'job/helloworld',
      '--timeout=120s',
    ]);
    const pods = await core.listNamespacedPod({
      namespace: 'default',
      labelSelector: 'job-name=helloworld',
    });
    const pod = pods.items[0];
    expect(pod?.spec?.nodeName).toBe(NAME);
    expect(pod?.status?.phase).toBe('Succeeded');
    expect(pod?.status?.podIP).toBe(remote.address);
    expect(pod?.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({
      exitCode: 0,
      reason: 'Completed',
    });

    // Its output, through the apiserver and the remote node's logs endpoint.
    const log = await kubectl(env.kubeconfigPath, ['logs', 'job/helloworld']);
    const line = (key: string) =>
      log
        .split('\n')
        .filter((l) => l.startsWith(`${key} `))
        .map((l) => l.slice(key.length + 1));
    expect(line('api')).toEqual([`${node.ip}:${nodePort} tcp://${node.ip}:${nodePort}`]);
    expect(line('exposer')).toEqual(['hello from the echo']);
    expect(line('apiserver')[0]).toMatch(/network is unreachable/);
    expect(line('pod')[0]).toMatch(/network is unreachable/);
    expect(line('service')[0]).toMatch(/network is unreachable/);
    expect(line('kubelet')[0]).toMatch(/connection refused/);
    expect(line('namespace')).toEqual(['default']);
    expect(line('me')).toEqual([pod?.metadata?.name]);
    expect(line('ca').join('\n')).toBe(exposerCa.cert.trim());

    // interLink's token: bound to the Pod, no audience of its own, 100 years unless capped.
    const token = claims(line('token')[0] ?? '');
    expect(token['kubernetes.io'].pod).toEqual({
      name: pod?.metadata?.name,
      uid: pod?.metadata?.uid,
    });
    expect(token.aud).toEqual(['https://kubernetes.default.svc.cluster.local']);
    expect(token.exp - token.iat).toBe(TOKEN_SECONDS);
    const issued = remote.issuedTokens().find((t) => t.pod === pod?.metadata?.name);
    expect(issued).toMatchObject({ serviceAccount: 'default', requestedSeconds: TOKEN_SECONDS });
    expect(Date.parse(issued?.expirationTimestamp ?? '') / 1000).toBe(token.exp);

    expect(await kubectl(env.kubeconfigPath, ['logs', pod?.metadata?.name ?? '', '--tail=1'])).toBe(
      `me ${pod?.metadata?.name ?? ''}\n`,
    );
    expect(remote.podLogs('default', pod?.metadata?.name ?? '')).toBe(log);
    const jobs = env.kubeConfig.makeApiClient(BatchV1Api);
    const done = await jobs.readNamespacedJob({ name: 'helloworld', namespace: 'default' });
    expect(done.status?.succeeded).toBe(1);
  });

  it('kills a running Pod’s processes when it is deleted, then deletes it', async () => {
    const job = seedJob(
      'sleeper',
      'trap "echo stopping; exit 0" TERM; echo started; sleep 3600 & wait',
    );
    await applyManifests(env.kubeconfigPath, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'sleeper', namespace: 'default' },
      spec: job.spec?.template.spec,
    } as V1Pod);
    const pod = await podIn(env, 'sleeper', 'default', ['Running']);
    expect(pod.spec?.nodeName).toBe(NAME);
    expect(pod.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    const pids = await waitFor(
      () => {
        const found = remote.podPids('default', 'sleeper');
        const sleeps = found.filter((p) => {
          try {
            return readFileSync(`/proc/${p}/cmdline`, 'utf8').startsWith('sleep\0');
          } catch {
            return false;
          }
        });
        return Promise.resolve(
          sleeps.length > 0
            ? { done: true as const, value: found }
            : { done: false as const, saw: `pids ${found.join(',')}` },
        );
      },
      { description: 'the sleeper to run', timeoutMs: 30_000 },
    );
    const folder = join(env.dir, `kfx-remote-${NAME}`, 'pods', pod.metadata?.uid ?? '');
    expect(existsSync(folder)).toBe(true);
    // `kubectl logs -f` follows it until it ends.
    const follower = spawn(
      requireBinaries(['kubectl']).kubectl,
      ['--kubeconfig', env.kubeconfigPath, '--cache-dir', join(env.dir, 'kubectl-cache')].concat([
        'logs',
        '-f',
        'sleeper',
      ]),
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let followed = '';
    follower.stdout.on('data', (chunk: Buffer) => (followed += chunk.toString()));
    const followEnded = new Promise((resolve) => follower.once('exit', resolve));
    await waitFor(
      () =>
        Promise.resolve(
          followed === 'started\n'
            ? { done: true as const, value: undefined }
            : { done: false as const, saw: JSON.stringify(followed) },
        ),
      { description: 'kubectl logs -f to show the start', timeoutMs: 30_000 },
    );
    await core.deleteNamespacedPod({ name: 'sleeper', namespace: 'default' });
    await waitFor(
      async () => {
        const left = await core.readNamespacedPod({ name: 'sleeper', namespace: 'default' }).then(
          (p) => p.status?.phase ?? 'there',
          () => undefined,
        );
        return left === undefined
          ? { done: true, value: undefined }
          : { done: false, saw: `the pod is ${left}` };
      },
      { description: 'the remote node to delete the pod', timeoutMs: 60_000 },
    );
    expect(pids.filter(running)).toEqual([]);
    expect(existsSync(folder)).toBe(false);
    await followEnded;
    expect(followed).toBe('started\nstopping\n'); // its SIGTERM handler ran
  });

  it('gives a workload kubectl’s in-cluster configuration where the API address is the apiserver', async () => {
    // A second remote node, whose configured address is the apiserver itself (beside the real
    // node, not on it: its traffic is masqueraded by the node): the token works as interLink's
    // workloads use it, through the API address and CA they are given.
    const node = env.node;
    if (!node) throw new Error('no node');
    const api = new URL(env.server);
    const direct = await startRemoteNode(env, {
      name: 'direct-node',
      kubernetesApiAddr: api.hostname,
      kubernetesApiPort: Number(api.port),
      kubernetesApiCaCrt: env.caCert,
    });
    try {
      expect(direct.address).not.toBe(remote.address);
      await direct.loadShellImage({ name: IMAGE, entries: [kubectlEntry()] });
      const whoami = interlinkSeedJob({
        name: 'whoami',
        namespace: 'default',
        node: 'direct-node',
        image: IMAGE,
        script: 'kubectl auth whoami -o json',
      });
      await applyManifests(env.kubeconfigPath, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'whoami', namespace: 'default' },
        spec: whoami.spec?.template.spec,
      } as V1Pod);
      const done = await podIn(env, 'whoami');
      const log = direct.podLogs('default', 'whoami');
      expect(done.status?.phase, log).toBe('Succeeded');
      const { status } = JSON.parse(log) as {
        status: { userInfo: { username: string; extra: Record<string, string[]> } };
      };
      expect(status.userInfo.username).toBe('system:serviceaccount:default:default');
      expect(status.userInfo.extra['authentication.kubernetes.io/pod-name']).toEqual(['whoami']);
    } finally {
      await direct.stop();
    }
  });

  it('stops leaving no process, link, rule, Node or folder', async () => {
    const node = env.node;
    if (!node) throw new Error('no node');
    const pids = remote.pids();
    expect(pids.length).toBeGreaterThan(0); // its network's holder
    await remote.stop();
    expect(pids.filter(running)).toEqual([]);
    const inNode = (...args: string[]) =>
      execFileSync('nsenter', ['-t', String(node.namespacePid), '-n', '--', ...args], {
        encoding: 'utf8',
      });
    expect(inNode('ip', '-o', 'link', 'show')).not.toMatch(/kfxrm/);
    expect(inNode('iptables-save', '-t', 'nat')).not.toMatch(/kfx-remote/);
    expect(execFileSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' })).not.toMatch(/kfxrm/);
    expect(existsSync(join(env.dir, `kfx-remote-${NAME}`))).toBe(false);
    expect(existsSync(join(env.dir, `remote-node-${NAME}.json`))).toBe(false);
    await expect(core.readNode({ name: NAME })).rejects.toThrow();
  });
});

describe.skipIf(!support.available)(title('a remote node and the host'), () => {
  it('is torn down by the reaper with its running Pods when the test process is killed', async () => {
    const script = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const t = await import(${JSON.stringify(script)});
         const env = await t.startControlPlane({ components: ['node'] });
         const remote = await t.startRemoteNode(env, {
           kubernetesApiAddr: env.node.ip, kubernetesApiPort: 30000,
         });
         const image = await remote.loadShellImage({ name: 'kfx.test/shell:1' });
         await t.applyManifests(env.kubeconfigPath, {
           apiVersion: 'v1', kind: 'Pod', metadata: { name: 'sleeper', namespace: 'default' },
           spec: { nodeName: remote.name, restartPolicy: 'Never',
             containers: [{ name: 'c', image, command: ['sleep', '3600'] }] },
         });
         await t.waitFor(async () => remote.podPids('default', 'sleeper').length > 1
           ? { done: true, value: undefined } : { done: false, saw: 'not yet' },
           { description: 'the sleeper', timeoutMs: 60000 });
         console.log(JSON.stringify({ dir: env.dir, pids: remote.pids() }));
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const started = await waitFor(
      () => {
        const line = (child.stdout.read() as Buffer | null)?.toString();
        return Promise.resolve(
          line
            ? { done: true as const, value: line }
            : { done: false as const, saw: 'nothing yet' },
        );
      },
      { description: 'the child to start a remote node and its Pod', timeoutMs: 180_000 },
    );
    const { dir, pids } = JSON.parse(started) as { dir: string; pids: number[] };
    const traces = JSON.parse(readFileSync(join(dir, `remote-node-${NAME}.json`), 'utf8')) as {
      cgroup: string;
    };
    expect(pids.filter(running).length).toBeGreaterThan(1); // its network's holder, the sleeper
    child.kill('SIGKILL');
    await waitFor(
      () =>
        Promise.resolve(
          !existsSync(dir) && pids.filter(running).length === 0
            ? { done: true as const, value: undefined }
            : {
                done: false as const,
                saw: `dir ${existsSync(dir)}, running ${pids.filter(running).join(',')}`,
              },
        ),
      { description: 'the reaper to tear the remote node down', timeoutMs: 60_000 },
    );
    expect(cgroupPids(traces.cgroup)).toEqual([]);
  });
});
