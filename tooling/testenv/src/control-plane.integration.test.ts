// startControlPlane itself: etcd and kube-apiserver round-trip objects as written, call a webhook
// on 127.0.0.1, restart on the same data and deny a plain user; a dead HTTP(S)_PROXY changes
// nothing; with controller-manager, scheduler and kwok, garbage collection, Jobs, logs and
// namespace deletion work; stop() leaves no folder or process behind.
// It starts its own control planes: they are what it tests.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import http from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { BatchV1Api, CoreV1Api, CustomObjectsApi, type V1Pod } from '@kubernetes/client-node';
import { createCertificateAuthority } from '@kfx/dev-certs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from './control-plane.js';
import { KWOK_ANNOTATIONS } from './kwok.js';
import { appendLog, serveLogsFromFile } from './logs.js';
import { applyManifests, kubectl } from './objects.js';
import { registerWebhook } from './webhooks.js';
import { waitFor } from './wait.js';

describe('a control plane with etcd and kube-apiserver', () => {
  let env: ControlPlane;
  beforeAll(async () => {
    env = await startControlPlane();
  });
  afterAll(async () => {
    await env.stop();
  });

  it('round-trips a namespace and a Kubeflow Profile', async () => {
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'round-trip' } } });
    expect((await core.readNamespace({ name: 'round-trip' })).status?.phase).toBe('Active');

    const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    const profile = {
      apiVersion: 'kubeflow.org/v1',
      kind: 'Profile',
      metadata: { name: 'team-a' },
      spec: {
        owner: { kind: 'User', name: 'alice@example.com' },
        resourceQuotaSpec: { hard: { cpu: '8', 'requests.nvidia.com/gpu': '1' } },
        plugins: [{ kind: 'WorkloadIdentity', spec: { gcpServiceAccount: 'sa@example.iam' } }],
      },
    };
    await custom.createClusterCustomObject({
      group: 'kubeflow.org',
      version: 'v1',
      plural: 'profiles',
      body: profile,
    });
    const stored = (await custom.getClusterCustomObject({
      group: 'kubeflow.org',
      version: 'v1',
      plural: 'profiles',
      name: 'team-a',
    })) as typeof profile;
    expect(stored.spec.owner.name).toBe('alice@example.com');
    // Free-form parts of the schema are kept, not pruned.
    expect(stored.spec.resourceQuotaSpec.hard).toEqual({
      cpu: '8',
      'requests.nvidia.com/gpu': '1',
    });
    expect(stored.spec.plugins[0]?.spec).toEqual({ gcpServiceAccount: 'sa@example.iam' });
  });

  it('applies manifests exactly as written', async () => {
    const [cm] = await applyManifests(
      env.kubeconfigPath,
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: applied, namespace: default}\ndata: {a: "1"}\n',
    );
    expect(cm).toMatchObject({
      kind: 'ConfigMap',
      metadata: { name: 'applied' },
      data: { a: '1' },
    });
  });

  it('rejects a Profile whose owner has no name, as the CRD schema says', async () => {
    const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    await expect(
      custom.createClusterCustomObject({
        group: 'kubeflow.org',
        version: 'v1',
        plural: 'profiles',
        body: {
          apiVersion: 'kubeflow.org/v1',
          kind: 'Profile',
          metadata: { name: 'bad' },
          spec: { owner: { kind: 'User' } },
        },
      }),
    ).rejects.toMatchObject({ code: 422 });
  });

  it('lets the apiserver call a webhook registered by URL on 127.0.0.1', async () => {
    const ca = createCertificateAuthority();
    const serving = ca.issue({ commonName: 'webhook', ipAddresses: ['127.0.0.1'] });
    const seen: string[] = [];
    const server = createServer(serving, (req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const review = JSON.parse(body) as { request: { uid: string; object: V1Pod } };
        seen.push(review.request.object.metadata?.name ?? '');
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            apiVersion: 'admission.k8s.io/v1',
            kind: 'AdmissionReview',
            response: { uid: review.request.uid, allowed: true },
          }),
        );
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const unregister = await registerWebhook(env.kubeConfig, {
      name: 'testenv-probe',
      url: `https://127.0.0.1:${port}/`,
      caBundle: ca.cert,
      rules: [
        { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] },
      ],
    });
    try {
      const core = env.kubeConfig.makeApiClient(CoreV1Api);
      // The apiserver picks up new webhook configurations asynchronously: retry with dry-run.
      await waitFor(
        async () => {
          await core.createNamespacedPod({
            namespace: 'default',
            dryRun: 'All',
            body: {
              metadata: { name: 'probe' },
              spec: { containers: [{ name: 'c', image: 'busybox' }] },
            },
          });
          return seen.includes('probe')
            ? { done: true, value: undefined }
            : { done: false, saw: `webhook saw ${JSON.stringify(seen)}` };
        },
        { description: 'the apiserver to call the webhook', timeoutMs: 20_000 },
      );
      expect(seen).toContain('probe');
    } finally {
      await unregister();
      server.close();
    }
  });

  it('restarts the apiserver and serves the same data after', async () => {
    await env.restartApiServer();
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    expect((await core.readNamespace({ name: 'round-trip' })).metadata?.name).toBe('round-trip');
  });

  it('gives a plain user a kubeconfig that RBAC denies', async () => {
    const { kubeConfig } = env.userKubeconfig('mallory', ['developers']);
    const core = kubeConfig.makeApiClient(CoreV1Api);
    await expect(core.listNamespace()).rejects.toMatchObject({ code: 403 });
  });

  it('removes its folder and leaves no process behind on stop()', async () => {
    const other = await startControlPlane({ profileCrd: false });
    const pids = readFileSync(`${other.dir}/pids`, 'utf8').trim().split('\n').map(Number);
    await other.stop();
    expect(existsSync(other.dir)).toBe(false);
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
  });
});

describe('a control plane started where HTTP(S)_PROXY points at a dead proxy', () => {
  it('starts anyway: nothing local goes through the proxy', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      HTTP_PROXY: 'http://127.0.0.1:9',
      HTTPS_PROXY: 'http://127.0.0.1:9',
      NO_PROXY: '',
    });
    // What NODE_USE_ENV_PROXY=1 does at process start, done now: Node's global agents take the proxy.
    http.setGlobalProxyFromEnv();
    try {
      const env = await startControlPlane({ profileCrd: false });
      await env.stop();
    } finally {
      process.env = saved;
      http.setGlobalProxyFromEnv();
    }
  });
});

describe('a control plane with controller-manager, scheduler and kwok', () => {
  let env: ControlPlane;
  beforeAll(async () => {
    env = await startControlPlane({ components: ['controller-manager', 'scheduler', 'kwok'] });
  });
  afterAll(async () => {
    await env.stop();
  });

  it('garbage-collects dependents when their owner is deleted', async () => {
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const owner = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'owner' } },
    });
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: {
        metadata: {
          name: 'dependent',
          ownerReferences: [
            { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata?.uid ?? '' },
          ],
        },
      },
    });
    await core.deleteNamespacedConfigMap({ namespace: 'default', name: 'owner' });
    await waitFor(
      async () => {
        const list = await core.listNamespacedConfigMap({
          namespace: 'default',
          fieldSelector: 'metadata.name=dependent',
        });
        return list.items.length === 0
          ? { done: true, value: undefined }
          : { done: false, saw: 'dependent still exists' };
      },
      { description: 'the dependent ConfigMap to be collected', timeoutMs: 30_000 },
    );
  });

  it('runs a Job to Succeeded on a kwok node', async () => {
    const batch = env.kubeConfig.makeApiClient(BatchV1Api);
    await batch.createNamespacedJob({
      namespace: 'default',
      body: {
        metadata: { name: 'hello' },
        spec: {
          backoffLimit: 0,
          template: {
            spec: {
              restartPolicy: 'Never',
              containers: [{ name: 'main', image: 'busybox', command: ['true'] }],
            },
          },
        },
      },
    });
    const job = await waitFor(
      async () => {
        const j = await batch.readNamespacedJob({ namespace: 'default', name: 'hello' });
        const done = j.status?.conditions?.find(
          (c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
        );
        return done
          ? { done: true, value: done.type }
          : { done: false, saw: JSON.stringify(j.status ?? {}) };
      },
      { description: 'Job hello to finish', timeoutMs: 60_000 },
    );
    expect(job).toBe('Complete');
  });

  it('fails a Job whose pod template asks kwok for exit code 3, and serves its log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kfx-logs-'));
    const file = join(dir, 'main.log');
    appendLog(file, 'collected 2 items', '1 failed, 1 passed');
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'suite' } } });
    const removeLogs = await serveLogsFromFile(env.kubeconfigPath, { namespace: 'suite', file });
    const batch = env.kubeConfig.makeApiClient(BatchV1Api);
    await batch.createNamespacedJob({
      namespace: 'suite',
      body: {
        metadata: { name: 'failing' },
        spec: {
          backoffLimit: 0,
          template: {
            metadata: {
              annotations: { [KWOK_ANNOTATIONS.exitCode]: '3', [KWOK_ANNOTATIONS.runFor]: '2s' },
            },
            spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'pytest' }] },
          },
        },
      },
    });
    const pod = await waitFor(
      async () => {
        const pods = await core.listNamespacedPod({
          namespace: 'suite',
          labelSelector: 'job-name=failing',
        });
        const p = pods.items[0];
        return p?.status?.phase === 'Failed'
          ? { done: true, value: p }
          : { done: false, saw: `phase ${p?.status?.phase}` };
      },
      { description: 'the Job pod to fail', timeoutMs: 60_000 },
    );
    expect(pod.status?.containerStatuses?.[0]?.state?.terminated?.exitCode).toBe(3);
    const log = await kubectl(env.kubeconfigPath, [
      'logs',
      '-n',
      'suite',
      pod.metadata?.name ?? '',
    ]);
    expect(log).toBe('collected 2 items\n1 failed, 1 passed\n');
    await removeLogs();
    rmSync(dir, { recursive: true, force: true });
  });

  it('deletes a namespace and everything in it', async () => {
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'doomed' } } });
    await core.createNamespacedConfigMap({
      namespace: 'doomed',
      body: { metadata: { name: 'x' } },
    });
    await core.deleteNamespace({ name: 'doomed' });
    await waitFor(
      async () => {
        const list = await core.listNamespace({ fieldSelector: 'metadata.name=doomed' });
        return list.items.length === 0
          ? { done: true, value: undefined }
          : { done: false, saw: `phase ${list.items[0]?.status?.phase}` };
      },
      { description: 'namespace doomed to be gone', timeoutMs: 60_000 },
    );
  });
});
