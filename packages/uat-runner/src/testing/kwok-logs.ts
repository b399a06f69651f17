// Test support: make the test control plane's kwok serve container logs from files, as a
// kubelet would. Two things in @kfx/testenv stand in the way, worked around here without
// touching it: its kwok runs with debugging handlers off, so pods/log answers 405 "Debug
// endpoints are disabled" (a second kwok that manages no node serves the kubelet endpoints
// instead); and its Logs/ClusterLogs CRDs lost `x-kubernetes-preserve-unknown-fields` on the way
// in, so the apiserver prunes every spec to {} (the flag is put back). Both checks find nothing
// to do once testenv is fixed, and then this only creates ClusterLogs objects.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1CustomResourceDefinition, V1Node } from '@kubernetes/client-node';
import { KubeClient, resources, type ResourceRef } from '@kfx/kube-runtime';
import { freePort, lookUpBinaries, waitFor, type ControlPlane } from '@kfx/testenv';

const clusterLogs: ResourceRef = {
  group: 'kwok.x-k8s.io',
  version: 'v1alpha1',
  resource: 'clusterlogs',
  kind: 'ClusterLogs',
  namespaced: false,
};

export interface KwokLogs {
  /** Serves `file` (CRI log format) as the log of every container in `namespace`. */
  serveNamespace(namespace: string, file: string): Promise<void>;
  /** Whether a second kwok had to be started to serve logs. */
  readonly workaround: boolean;
  stop(): Promise<void>;
}

/** One CRI log line (`<RFC 3339 nano> stdout F <text>`) stamped now. */
export function criLine(text: string, stream: 'stdout' | 'stderr' = 'stdout'): string {
  return `${new Date().toISOString().replace('Z', '000000Z')} ${stream} F ${text}\n`;
}

/** Appends lines to a CRI log file, each stamped when written. */
export function appendLog(file: string, ...lines: string[]): void {
  appendFileSync(file, lines.map((line) => criLine(line)).join(''));
}

export async function enableKwokLogs(env: ControlPlane, node = 'kwok-node-0'): Promise<KwokLogs> {
  const client = KubeClient.fromKubeConfig(env.kubeConfig);
  await preserveSpecs(client);
  const port = (await client.get<V1Node>(resources.nodes, node)).status?.daemonEndpoints
    ?.kubeletEndpoint?.Port;
  if (port === undefined) throw new Error(`node ${node} has no kubelet endpoint port`);
  const workaround =
    (await probeLogs(port)) === 405 ? await startLogServer(env, client, node) : undefined;
  const names: string[] = [];
  return {
    workaround: workaround !== undefined,
    async serveNamespace(namespace, file) {
      const name = `kfx-test-${namespace}`;
      names.push(name);
      await client.create(clusterLogs, {
        apiVersion: 'kwok.x-k8s.io/v1alpha1',
        kind: 'ClusterLogs',
        metadata: { name },
        spec: {
          selector: { matchNamespaces: [namespace] },
          logs: [{ logsFile: file, follow: true }],
        },
      });
    },
    async stop() {
      for (const name of names) await client.delete(clusterLogs, name).catch(() => undefined);
      await workaround?.stop();
      client.close();
    },
  };
}

async function preserveSpecs(client: KubeClient): Promise<void> {
  for (const name of ['logs.kwok.x-k8s.io', 'clusterlogs.kwok.x-k8s.io']) {
    const crd = await client.get<V1CustomResourceDefinition>(
      resources.customResourceDefinitions,
      name,
    );
    let changed = false;
    for (const version of crd.spec.versions) {
      const spec = version.schema?.openAPIV3Schema?.properties?.spec as
        Record<string, unknown> | undefined;
      if (spec && spec['x-kubernetes-preserve-unknown-fields'] !== true) {
        spec['x-kubernetes-preserve-unknown-fields'] = true;
        changed = true;
      }
    }
    if (changed) await client.replace(resources.customResourceDefinitions, crd);
  }
}

function probeLogs(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/containerLogs/probe/probe/probe',
        rejectUnauthorized: false,
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A second kwok that manages no node and serves only the kubelet endpoints, logs included. */
async function startLogServer(
  env: ControlPlane,
  client: KubeClient,
  node: string,
): Promise<{ stop(): Promise<void> }> {
  const kwok = lookUpBinaries(['kwok']).found.kwok;
  if (!kwok) throw new Error('the kwok binary is not built (run the testenv binaries build)');
  const dir = mkdtempSync(join(tmpdir(), 'kfx-kwok-logs-'));
  const port = await freePort();
  const never = (kind: string) =>
    `---\napiVersion: kwok.x-k8s.io/v1alpha1\nkind: Stage\nmetadata: {name: never-${kind.toLowerCase()}}\nspec:\n  resourceRef: {apiGroup: v1, kind: ${kind}}\n  selector: {matchLabels: {kfx.dev/never: "true"}}\n  next: {delete: true}\n`;
  writeFileSync(
    join(dir, 'kwok.yaml'),
    `apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokConfiguration
options:
  manageNodesWithLabelSelector: kfx.dev/never=true
  serverAddress: 127.0.0.1:${port}
  enableDebuggingHandlers: true
  enableCRDs: [Logs, ClusterLogs]
  nodeLeaseDurationSeconds: 40
  nodeLeaseParallelism: 1
  podPlayStageParallelism: 1
  nodePlayStageParallelism: 1
  podsOnNodeSyncParallelism: 1
${never('Node')}${never('Pod')}`,
  );
  const child: ChildProcess = spawn(
    kwok,
    [`--kubeconfig=${env.kubeconfigPath}`, `--config=${join(dir, 'kwok.yaml')}`],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`kwok (log server) exited: ${stderr}`);
      const status = await probeLogs(port).catch(() => 0);
      return status === 0 ? { done: false, saw: 'no answer yet' } : { done: true, value: status };
    },
    { description: 'the kwok log server to listen', timeoutMs: 30_000 },
  );
  await client.patch(
    resources.nodes,
    node,
    { status: { daemonEndpoints: { kubeletEndpoint: { Port: port } } } },
    { subresource: 'status' },
  );
  return {
    async stop() {
      process.removeListener('exit', kill);
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
      kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
