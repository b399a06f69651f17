// The real node on a real control plane: containers really run from imported images, nothing is
// pulled, kwok keeps its own nodes beside it, squid forwards pods to a loopback origin and logs
// them, two nodes run at once, and nothing is left on the host after stop() or after the test
// process is killed (the reaper).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, type V1Pod, type V1PodSpec } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../control-plane.js';
import { waitFor } from '../wait.js';
import { startEgress } from './egress.js';
import { realNodeSupport } from './host.js';
import { cgroupPids } from './teardown.js';

const support = realNodeSupport();
const title = (what: string) =>
  support.available ? what : `${what} (skipped: ${support.reason ?? 'unavailable'})`;

type PodParts = Pick<V1PodSpec, 'containers'> & { volumes?: NonNullable<V1PodSpec['volumes']> };

const pod = (name: string, spec: PodParts): V1Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: { restartPolicy: 'Never', nodeName: 'kfx-node', ...spec },
});

async function finished(env: ControlPlane, name: string): Promise<V1Pod> {
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  return waitFor(
    async () => {
      const found = await core.readNamespacedPod({ name, namespace: 'default' });
      const phase = found.status?.phase;
      return phase === 'Succeeded' || phase === 'Failed'
        ? { done: true, value: found }
        : { done: false, saw: JSON.stringify(found.status?.containerStatuses ?? phase) };
    },
    { description: `pod ${name} to finish`, timeoutMs: 120_000 },
  );
}

const logOf = (env: ControlPlane, name: string) =>
  env.kubeConfig.makeApiClient(CoreV1Api).readNamespacedPodLog({ name, namespace: 'default' });

const bridgeExists = (bridge: string) => {
  try {
    execFileSync('ip', ['link', 'show', bridge], { stdio: 'ignore' });
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
    const real = await finished(env, 'real');
    expect(real.status?.phase).toBe('Succeeded');
    const ip = real.status?.podIP ?? '';
    expect(ip.startsWith(node.subnet.replace(/0\/24$/, ''))).toBe(true);
    expect(await logOf(env, 'real')).toBe(`hello from a ConfigMap\npod ${ip} on Linux\n`);
    const failed = await finished(env, 'fails');
    expect(failed.status?.phase).toBe('Failed');
    expect(failed.status?.containerStatuses?.[0]?.state?.terminated?.exitCode).toBe(3);
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
        body: pod('proxied', {
          containers: [
            {
              name: 'c',
              image,
              imagePullPolicy: 'Never',
              command: [
                'sh',
                '-c',
                `fetch ${url} && fetch http://elsewhere.test:${origin.port}/ 2>&1 || echo refused`,
              ],
              env: [{ name: 'HTTP_PROXY', value: proxy.url }],
            },
          ],
        }),
      });
      const done = await finished(env, 'proxied');
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
  it('runs two nodes at once, and stop() leaves no process, cgroup, bridge or file', async () => {
    const [a, b] = await Promise.all([
      startControlPlane({ components: ['node'] }),
      startControlPlane({ components: ['node'] }),
    ]);
    if (!a.node || !b.node) throw new Error('no nodes');
    expect(a.node.bridge).not.toBe(b.node.bridge);
    expect(a.node.subnet).not.toBe(b.node.subnet);
    const image = await a.node.loadShellImage({ name: 'kfx.test/shell:1' });
    const core = a.kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespacedPod({
      namespace: 'default',
      body: pod('sleeper', {
        containers: [{ name: 'c', image, imagePullPolicy: 'Never', command: ['sleep', '3600'] }],
      }),
    });
    await waitFor(
      async () => {
        const found = await core.readNamespacedPod({ name: 'sleeper', namespace: 'default' });
        return found.status?.phase === 'Running'
          ? { done: true, value: undefined }
          : { done: false, saw: found.status?.phase ?? 'no status' };
      },
      { description: 'the sleeper to run', timeoutMs: 120_000 },
    );
    const pids = a.node.pids();
    expect(pids.length).toBeGreaterThan(3); // namespace, containerd, kubelet, shim, pause, sleep
    await a.stop();
    expect(pids.filter(running)).toEqual([]);
    expect(bridgeExists(a.node.bridge)).toBe(false);
    expect(existsSync(a.dir)).toBe(false);
    expect(a.node.pids()).toEqual([]);
    expect(bridgeExists(b.node.bridge)).toBe(true);
    await b.stop();
    expect(bridgeExists(b.node.bridge)).toBe(false);
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
         console.log(JSON.stringify({ dir: env.dir, bridge: env.node.bridge }));
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
    const { dir, bridge } = JSON.parse(started) as { dir: string; bridge: string };
    const traces = JSON.parse(readFileSync(`${dir}/node.json`, 'utf8')) as { cgroup: string };
    const pids = cgroupPids(traces.cgroup);
    expect(pids.length).toBeGreaterThan(0);
    child.kill('SIGKILL');
    await waitFor(
      () =>
        Promise.resolve(
          !existsSync(dir) && !bridgeExists(bridge) && pids.filter(running).length === 0
            ? { done: true as const, value: undefined }
            : {
                done: false as const,
                saw: `dir ${existsSync(dir)}, bridge ${bridgeExists(bridge)}`,
              },
        ),
      { description: 'the reaper to tear the node down', timeoutMs: 60_000 },
    );
    expect(cgroupPids(traces.cgroup)).toEqual([]);
  });
});
