// The local demonstration that `kfx demo` (and so `npm start`) runs. An embedded control plane (etcd,
// kube-apiserver, controller-manager, scheduler) with a real node (containerd, kubelet, kube-proxy,
// cluster DNS) where the machine allows one, kwok's simulated node where it does not; the real
// kfx-webhook and kfx-controller binaries against it, then a Profile, a Pod, two claims and a UAT
// run, each with what kfx did. On a real node a container also fetches through a real proxy, and
// the UAT suite really runs. With --keep the cluster stays, for the charts (keep.ts).
import { KubeClient } from '@kfx/kube-runtime/client';
import type { Egress, ManagedProcess } from '@kfx/testenv';
import { pino } from 'pino';
import { startController, startWebhook, waitForWebhook } from './apps.js';
import { handOver, keepMessage, writeCommands } from './keep.js';
import { DEMO_PROXY_URL, showRealFetch, showRealUat, startEgress } from './real-node.js';
import { showClaims, showPod, showProfile, showUat } from './scenario.js';
import { loadTestenv } from './testenv.js';

/** The steps, on a real node (`real`) or on kwok. */
function demoSteps(real: boolean): string[] {
  return [
    real
      ? 'start a local control plane (etcd, kube-apiserver, controller-manager, scheduler) and a real node (containerd, kubelet, kube-proxy, CoreDNS), with squid as the egress proxy'
      : 'start a local control plane (etcd, kube-apiserver, controller-manager, scheduler, kwok)',
    'start kfx-webhook and kfx-controller against it',
    'create a Profile with quota labels and show the per-profile objects',
    'create a Pod and show the injected proxy variables',
    ...(real
      ? ['run a container with no proxy settings that fetches from outside: through the proxy']
      : []),
    'create ReadWriteMany and ReadWriteOnce claims and show the StorageClasses they got',
    real
      ? 'run a real UAT suite as a Job (it calls Kubeflow Pipelines with the token kfx mounts) and show its result'
      : 'run a UAT Job and show its result',
  ];
}

/** Where the demo's proxy points when nothing listens there (kwok runs no container). */
const DEMO_PROXY = 'http://proxy.demo.example:3128';

function clock(): (line: string) => void {
  const start = performance.now();
  return (line) => {
    const s = ((performance.now() - start) / 1000).toFixed(1).padStart(5);
    console.log(`[${s}s] ${line}`);
  };
}

export interface DemoOptions {
  /**
   * Leave the cluster running (the demo's own apps stopped) until `signal` aborts, and print the
   * line that points kfx, kubectl and helm at it.
   */
  keep?: boolean | undefined;
  /**
   * Stops the demo: the step under way ends, then everything it made is removed and runDemo
   * rejects with the signal's reason. With `keep`, it ends the kept cluster.
   */
  signal: AbortSignal;
}

/** Resolves when `signal` aborts. */
const aborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else
      signal.addEventListener(
        'abort',
        () => {
          resolve();
        },
        { once: true },
      );
  });

/** Runs the demo, printing each step to stdout; sets `process.exitCode` to 1 if the UAT run fails. */
export async function runDemo(options: DemoOptions): Promise<void> {
  const { signal } = options;
  const log = clock();
  const testenv = await loadTestenv();
  const support = testenv.realNodeSupport();
  console.log('kfx demo: what it shows, step by step');
  demoSteps(support.available).forEach((s, i) => {
    console.log(`  ${i + 1}. ${s}`);
  });
  console.log(
    support.available
      ? '\nPods run on a real node: containerd and a kubelet on this machine, nothing pulled.\n'
      : `\nPods run on kwok: simulated, no container runs (no real node here: ${support.reason ?? 'unknown'}).\n`,
  );
  signal.throwIfAborted();
  const env = await testenv.startControlPlane({
    components: support.available ? ['node'] : ['controller-manager', 'scheduler', 'kwok'],
    progress: (line) => {
      log(line);
    },
  });
  const node = env.node;
  let egress: Egress | undefined;
  const apps: ManagedProcess[] = [];
  const client = KubeClient.fromKubeConfig(env.kubeConfig, {
    userAgent: 'kfx-demo',
    logger: pino({ level: 'silent' }),
  });
  try {
    signal.throwIfAborted();
    log(`✓ control plane ready at ${env.server}`);
    if (node) {
      log(`✓ real node ${node.name} ready at ${node.ip} (pods on ${node.subnet})`);
      egress = await startEgress(testenv, env, node);
      log(`✓ squid forwarding the node's pods: ${DEMO_PROXY_URL} (at ${egress.proxy.url})`);
    }
    const proxy = egress ? DEMO_PROXY_URL : DEMO_PROXY;
    await testenv.applyManifests(env.kubeconfigPath, [
      {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: {
          name: 'standard',
          annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' },
        },
        provisioner: 'csi.vsphere.vmware.com',
      },
      {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: { name: 'nfs-client' },
        provisioner: 'nfs.csi.k8s.io',
      },
    ] as never);
    signal.throwIfAborted();
    apps.push(await startWebhook(testenv, env, proxy, log));
    await waitForWebhook(testenv, client);
    signal.throwIfAborted();
    apps.push(await startController(testenv, env, proxy, log));

    const real = node && egress ? { node, egress } : undefined;
    const sections: [string, () => Promise<string>][] = [
      ['Per-profile policy (kfx-controller)', () => showProfile(testenv, client)],
      ['Proxy variables (kfx-webhook, proxy-injector)', () => showPod(testenv, client)],
    ];
    if (real) {
      sections.push([
        'A real container using them (real node, squid)',
        () => showRealFetch(testenv, client, real.node, real.egress),
      ]);
    }
    sections.push(['Storage classes (kfx-webhook, pvc-rewriter)', () => showClaims(client)]);
    for (const [title, show] of sections) {
      signal.throwIfAborted();
      log(title);
      console.log(`${await show()}\n`);
    }
    signal.throwIfAborted();
    log('User-acceptance tests (kfx uat run)');
    const print = (line: string) => {
      console.log(line);
    };
    const uat = real
      ? await showRealUat(testenv, client, env, real.node, real.egress, print)
      : await showUat(testenv, client, env, print);
    console.log(`${uat.text}\n`);
    if (!options.keep)
      console.log('  (the artifacts go with the control plane at the end; --keep keeps both)\n');
    log(`✓ demo finished${uat.result.exitCode === 0 ? '' : ' (the UAT run did not pass)'}`);
    if (uat.result.exitCode !== 0) process.exitCode = 1;

    if (options.keep) {
      await handOver(testenv, env, apps);
      console.log(keepMessage(env, writeCommands(testenv, env), egress));
      await aborted(signal);
    }
  } finally {
    client.close();
    for (const app of apps.reverse()) await app.stop();
    await egress?.stop();
    await env.stop();
  }
}
