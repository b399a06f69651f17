// The real node on a real control plane: containers really run from imported images, nothing is
// pulled, kwok keeps its own nodes beside it, pods reach the apiserver through the `kubernetes`
// Service and each other through Services by name (kube-proxy, cluster DNS), squid forwards pods
// to a loopback origin and logs them, two nodes run at once with Services of their own, and
// nothing is left on the host (processes, links, iptables rules, files) after stop() or after
// the test process is killed (the reaper).
// It starts its own control planes: they are what it tests.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, type V1Service } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../control-plane.js';
import { applyManifests } from '../objects.js';
import { waitFor } from '../wait.js';
import { startEgress } from './egress.js';
import { writeShellImage } from './images.js';
import { clusterNodeImages } from './load-image.js';
import { cgroupPids } from './teardown.js';
import { logOf, pod, podIn, shellPod, support, title } from './test-pods.js';

/** The host's iptables rules that belong to a cluster: kube-proxy's, or naming its subnets. */
const hostRules = (...subnets: string[]) =>
  execFileSync('iptables-save', { encoding: 'utf8' })
    .split('\n')
    .filter(
      (line) =>
        line.includes('KUBE-SERVICES') ||
        subnets.some((s) => line.includes(s.replace(/0\/24$/, ''))),
    );

const linkExists = (link: string) => {
  try {
    execFileSync('ip', ['link', 'show', link], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/** Alive and not a zombie (PID 1 here may reap late). */
const running = (pid: number) => {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
};

describe.skipIf(!support.available)(title('a real node beside kwok'), () => {
  let env: ControlPlane;
  let core: CoreV1Api;
  beforeAll(async () => {
    env = await startControlPlane({ components: ['node', 'kwok'] });
    core = env.kubeConfig.makeApiClient(CoreV1Api);
  });
  afterAll(async () => {
    await env.stop();
  });

  it('runs real containers from an imported image: their output, exit codes and volumes', async () => {
    const node = env.node;
    if (!node) throw new Error('no node');
    const image = await node.loadShellImage({ name: 'kfx.test/shell:1' });
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'settings' }, data: { greeting: 'hello from a ConfigMap\n' } },
    });
    await core.createNamespacedPod({
      namespace: 'default',
      body: pod('real', {
        containers: [
          {
            name: 'c',
            image,
            imagePullPolicy: 'Never',
            command: ['sh', '-c', 'cat /settings/greeting; echo "pod $POD_IP on $(uname -s)"'],
            env: [{ name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }],
            volumeMounts: [{ name: 'settings', mountPath: '/settings' }],
          },
        ],
        volumes: [{ name: 'settings', configMap: { name: 'settings' } }],
      }),
    });
    await core.createNamespacedPod({
      namespace: 'default',
      body: pod('fails', {
        containers: [
          { name: 'c', image, imagePullPolicy: 'Never', command: ['sh', '-c', 'exit 3'] },
        ],
      }),
    });
    const real = await podIn(env, 'real');
    expect(real.status?.phase).toBe('Succeeded');
    const ip = real.status?.podIP ?? '';
    expect(ip.startsWith(node.subnet.replace(/0\/24$/, ''))).toBe(true);
    expect(await logOf(env, 'real')).toBe(`hello from a ConfigMap\npod ${ip} on Linux\n`);
    const failed = await podIn(env, 'fails');
    expect(failed.status?.phase).toBe('Failed');
    expect(failed.status?.containerStatuses?.[0]?.state?.terminated?.exitCode).toBe(3);
  });

  it('loads an image into the node from the kubeconfig alone, also under its unqualified name', async () => {
    // As `kfx demo load-image` does for a kept cluster: podman names local images localhost/…,
    // and a pod spec's unqualified `kfx-test/hello:1` means docker.io/kfx-test/hello:1.
    const dir = mkdtempSync(join(tmpdir(), 'kfx-load-image-'));
    try {
      const archive = writeShellImage(join(dir, 'hello.tar'), {
        name: 'localhost/kfx-test/hello:1',
        cmd: ['echo', 'hello from a loaded image'],
      });
      const images = await clusterNodeImages(env.kubeconfigPath);
      expect(await images.loadImage(archive)).toEqual([
        'localhost/kfx-test/hello:1',
        'docker.io/kfx-test/hello:1',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await applyManifests(
      env.kubeconfigPath,
      pod('loaded', { containers: [{ name: 'c', image: 'kfx-test/hello:1' }] }),
    );
    const done = await podIn(env, 'loaded');
    expect(done.status?.phase).toBe('Succeeded');
    expect(await logOf(env, 'loaded')).toBe('hello from a loaded image\n');
  });

  it('says which kubeconfig has no node to load images into', async () => {
    const plain = await startControlPlane();
    try {
      await expect(clusterNodeImages(plain.kubeconfigPath)).rejects.toThrow(
        `${plain.kubeconfigPath} is not the kubeconfig of a running kfx control plane with a real node`,
      );
    } finally {
      await plain.stop();
    }
  });

  it('never pulls: an image it does not have fails to pull at once', async () => {
    await core.createNamespacedPod({
      namespace: 'default',
      body: pod('pull', {
        containers: [
          { name: 'c', image: 'docker.io/library/busybox:1.36', imagePullPolicy: 'Always' },
        ],
      }),
    });
    const waiting = await waitFor(
      async () => {
        const found = await core.readNamespacedPod({ name: 'pull', namespace: 'default' });
        const state = found.status?.containerStatuses?.[0]?.state?.waiting;
        return state?.reason === 'ErrImagePull' || state?.reason === 'ImagePullBackOff'
          ? { done: true, value: state }
          : { done: false, saw: JSON.stringify(found.status ?? {}) };
      },
      { description: 'the pull to fail', timeoutMs: 60_000 },
    );
    expect(waiting.message ?? '').toMatch(
      /127\.0\.0\.1:9|proxyconnect|ErrImagePull|connection refused/,
    );
  });

  it('leaves kwok its own nodes: the real node is the kubelet’s', async () => {
    const real = await core.readNode({ name: 'kfx-node' });
    const ready = real.status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready).toMatchObject({ status: 'True', reason: 'KubeletReady' });
    expect(real.metadata?.annotations?.['kwok.x-k8s.io/node']).toBeUndefined();
    await core.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: { name: 'simulated' },
        spec: { nodeName: 'kwok-node-0', containers: [{ name: 'c', image: 'not-pulled' }] },
      },
    });
    await waitFor(
      async () => {
        const found = await core.readNamespacedPod({ name: 'simulated', namespace: 'default' });
        return found.status?.phase === 'Running'
          ? { done: true, value: undefined }
          : { done: false, saw: found.status?.phase ?? 'no status' };
      },
      { description: 'kwok to run its pod', timeoutMs: 60_000 },
    );
  });

  it('forwards pods through squid to a loopback origin, logging the pod, and only there', async () => {
    const node = env.node;
    if (!node) throw new Error('no node');
    const egress = await startEgress(node);
    const { origin, proxy } = egress;
    try {
      const image = await node.loadShellImage({ name: 'kfx.test/shell:1' });
      const url = egress.url('via-proxy');
      await core.createNamespacedPod({
        namespace: 'default',
        body: shellPod(
          'proxied',
          image,
          `fetch ${url} && fetch http://elsewhere.test:${origin.port}/ 2>&1 || echo refused`,
          { env: [{ name: 'HTTP_PROXY', value: proxy.url }] },
        ),
      });
      const done = await podIn(env, 'proxied');
      expect(await logOf(env, 'proxied')).toMatch(/^hello from the origin\n[^]*refused\n$/);
      const requests = proxy.requests();
      expect(requests).toContainEqual(
        expect.objectContaining({ client: done.status?.podIP, url, result: 'TCP_MISS/200' }),
      );
      expect(origin.hits).toContainEqual({ from: '127.0.0.1', path: '/via-proxy' });
      expect(origin.hits.some((hit) => hit.from === done.status?.podIP)).toBe(false);
    } finally {
      await egress.stop();
    }
  });
});

describe.skipIf(!support.available)(title('real nodes and the host'), () => {
  it('runs two nodes at once, each with Services of its own, and stop() leaves nothing', async () => {
    const [a, b] = await Promise.all([
      startControlPlane({ components: ['node'] }),
      startControlPlane({ components: ['node'] }),
    ]);
    try {
      if (!a.node || !b.node) throw new Error('no nodes');
      expect(a.node.hostLink).not.toBe(b.node.hostLink);
      expect(a.node.subnet).not.toBe(b.node.subnet);
      // Each cluster's DNS and kube-proxy are its own, though both hand out the same cluster IPs.
      const planes = [
        { env: a, mine: 'only-a', theirs: 'only-b' },
        { env: b, mine: 'only-b', theirs: 'only-a' },
      ];
      await Promise.all(
        planes.map(async ({ env, mine, theirs }) => {
          if (!env.node) throw new Error('no node');
          const image = await env.node.loadShellImage({
            name: 'kfx.test/shell:1',
            entries: [{ path: '/bin/nslookup', type: 'symlink', target: 'busybox' }],
          });
          await applyManifests(env.kubeconfigPath, [
            {
              apiVersion: 'v1',
              kind: 'Service',
              metadata: { name: mine, namespace: 'default' },
              spec: { ports: [{ port: 80 }] },
            } as V1Service,
            shellPod(
              'lookup',
              image,
              `nslookup ${mine}.default.svc.cluster.local && ! nslookup ${theirs}.default.svc.cluster.local`,
            ),
          ]);
          const done = await podIn(env, 'lookup');
          expect(done.status?.phase, await logOf(env, 'lookup')).toBe('Succeeded');
        }),
      );
      // Their rules are in their own network namespaces: the host's tables hold none of them.
      expect(hostRules(a.node.subnet, b.node.subnet)).toEqual([]);

      const image = await a.node.loadShellImage({ name: 'kfx.test/shell:1' });
      await applyManifests(
        a.kubeconfigPath,
        pod('sleeper', {
          containers: [{ name: 'c', image, imagePullPolicy: 'Never', command: ['sleep', '3600'] }],
        }),
      );
      await podIn(a, 'sleeper', 'default', ['Running']);
      const pids = a.node.pids();
      expect(pids.length).toBeGreaterThan(3); // namespace, containerd, kubelet, shim, pause, sleep
      await a.stop();
      expect(pids.filter(running)).toEqual([]);
      expect(linkExists(a.node.hostLink)).toBe(false);
      expect(existsSync(a.dir)).toBe(false);
      expect(a.node.pids()).toEqual([]);
      expect(linkExists(b.node.hostLink)).toBe(true);
      await b.stop();
      expect(linkExists(b.node.hostLink)).toBe(false);
      expect(hostRules(a.node.subnet, b.node.subnet)).toEqual([]);
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it('is torn down by the reaper when the test process is killed', async () => {
    const script = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { startControlPlane } = await import(${JSON.stringify(script)});
         const env = await startControlPlane({ components: ['node'] });
         console.log(JSON.stringify({ dir: env.dir, link: env.node.hostLink }));
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
      { description: 'the child to start a node', timeoutMs: 120_000 },
    );
    const { dir, link } = JSON.parse(started) as { dir: string; link: string };
    const traces = JSON.parse(readFileSync(`${dir}/node.json`, 'utf8')) as { cgroup: string };
    const pids = cgroupPids(traces.cgroup);
    expect(pids.length).toBeGreaterThan(0);
    child.kill('SIGKILL');
    await waitFor(
      () =>
        Promise.resolve(
          !existsSync(dir) && !linkExists(link) && pids.filter(running).length === 0
            ? { done: true as const, value: undefined }
            : {
                done: false as const,
                saw: `dir ${existsSync(dir)}, link ${linkExists(link)}`,
              },
        ),
      { description: 'the reaper to tear the node down', timeoutMs: 60_000 },
    );
    expect(cgroupPids(traces.cgroup)).toEqual([]);
  });
});
