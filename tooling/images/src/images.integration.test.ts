// The three app images, built here and run with podman against the real test control plane:
// the webhook mutates a Pod the apiserver sends it, the controller reconciles a Profile, the CLI
// answers. Skipped, saying why, only where podman cannot run containers.
// It owns its control plane: the only integration file of its package, it registers a webhook
// for every namespace and runs kfx-controller, which acts on every Profile of the cluster.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { createCertificateAuthority } from '@kfx/dev-certs';
import {
  type ControlPlane,
  freePort,
  type ProfileLike,
  profileNamespace,
  registerWebhook,
  startControlPlane,
  waitFor,
} from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { buildImages, IMAGE_SIZE_TARGET_BYTES, type BuildReport } from './build-images.js';
import { BASE_IMAGE, NONROOT_UID } from './base-image.js';
import { containersUnavailable, run } from './podman.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const unavailable = await containersUnavailable();
const title = unavailable ? `container images (skipped: ${unavailable})` : 'container images';

describe.skipIf(unavailable !== undefined)(title, () => {
  let env: ControlPlane;
  let report: BuildReport;
  const dir = mkdtempSync(join(tmpdir(), 'kfx-images-'));
  chmodSync(dir, 0o755); // the containers read it as user 65532
  const containers: string[] = [];

  /** Runs an image in the background on the host network, read-only, as its own user. */
  async function runDetached(image: string, args: string[]): Promise<string> {
    const id = (
      await run('podman', [
        'run',
        '-d',
        '--network=host',
        '--read-only',
        '-v',
        `${dir}:/config:ro`,
        image,
        ...args,
      ])
    ).trim();
    containers.push(id);
    return id;
  }

  beforeAll(async () => {
    report = await buildImages(root);
    env = await startControlPlane({ components: ['controller-manager'] });
    // The containers reach the apiserver on 127.0.0.1 through the host network.
    writeFileSync(join(dir, 'kubeconfig'), env.kubeConfig.exportConfig(), { mode: 0o644 });
  });

  afterAll(async () => {
    for (const id of containers) await run('podman', ['rm', '-f', id]).catch(() => undefined);
    await env.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`builds three app images of at most ${IMAGE_SIZE_TARGET_BYTES / 1048576} MiB each, non-root, without a shell`, async () => {
    for (const image of report.apps) {
      console.log(`${image.image}: ${(image.sizeBytes / 1048576).toFixed(1)} MiB`);
      expect(image.sizeBytes).toBeLessThanOrEqual(IMAGE_SIZE_TARGET_BYTES);
      const user = (
        await run('podman', ['image', 'inspect', '--format', '{{.Config.User}}', image.image])
      ).trim();
      expect(user).toBe(`${NONROOT_UID}:${NONROOT_UID}`);
      const labels = await run('podman', [
        'image',
        'inspect',
        '--format',
        '{{json .Config.Labels}}',
        image.image,
      ]);
      expect(JSON.parse(labels)).toMatchObject({
        'org.opencontainers.image.licenses': 'Apache-2.0',
      });
    }
    await expect(
      run('podman', [
        'run',
        '--rm',
        '--entrypoint',
        '/bin/sh',
        `${BASE_IMAGE}:latest`,
        '-c',
        'true',
      ]),
    ).rejects.toThrow();
  });

  it('runs the webhook image: the apiserver sends it a Pod and stores the injected variables', async () => {
    const ca = createCertificateAuthority();
    const serving = ca.issue({ commonName: 'kfx-webhook', ipAddresses: ['127.0.0.1'] });
    writeFileSync(join(dir, 'tls.crt'), serving.cert, { mode: 0o644 });
    writeFileSync(join(dir, 'tls.key'), serving.key, { mode: 0o644 });
    const [port, metricsPort] = [await freePort(), await freePort()];
    writeFileSync(
      join(dir, 'webhook.yaml'),
      stringify({
        port,
        metricsPort,
        tls: { certFile: '/config/tls.crt', keyFile: '/config/tls.key' },
        proxyInjector: {
          httpProxy: 'http://proxy.corp:3128',
          httpsProxy: 'http://proxy.corp:3128',
        },
      }),
      { mode: 0o644 },
    );
    const id = await runDetached('localhost/kfx/webhook:latest', [
      '--config',
      '/config/webhook.yaml',
      '--kubeconfig',
      '/config/kubeconfig',
    ]);
    await waitFor(
      async () => {
        const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).catch(() => undefined);
        return res?.ok
          ? { done: true, value: undefined }
          : { done: false, saw: await run('podman', ['logs', '--tail', '5', id]) };
      },
      { description: 'the webhook container to serve', timeoutMs: 30_000 },
    );
    const unregister = await registerWebhook(env.kubeConfig, {
      name: 'kfx-webhook-image',
      url: `https://127.0.0.1:${port}/mutate/proxy-injector`,
      caBundle: ca.cert,
      rules: [
        { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] },
      ],
    });
    try {
      const core = env.kubeConfig.makeApiClient(CoreV1Api);
      const env0 = await waitFor(
        async () => {
          const pod = await core.createNamespacedPod({
            namespace: 'default',
            dryRun: 'All',
            body: {
              metadata: { name: 'from-image' },
              spec: { containers: [{ name: 'main', image: 'python' }] },
            },
          });
          const vars = pod.spec?.containers[0]?.env ?? [];
          return vars.length > 0
            ? { done: true, value: vars }
            : { done: false, saw: 'no variables yet' };
        },
        { description: 'the apiserver to call the webhook container', timeoutMs: 30_000 },
      );
      expect(env0).toContainEqual({ name: 'HTTPS_PROXY', value: 'http://proxy.corp:3128' });
    } finally {
      await unregister();
    }
    // SIGTERM (podman stop) drains and exits 0.
    await run('podman', ['stop', '-t', '20', id]);
    expect((await run('podman', ['inspect', '--format', '{{.State.ExitCode}}', id])).trim()).toBe(
      '0',
    );
  });

  it('runs the controller image: a Profile gets its ResourceQuota', async () => {
    const metricsPort = await freePort();
    await runDetached('localhost/kfx/controller:latest', [
      '--kubeconfig',
      '/config/kubeconfig',
      '--no-leader-elect',
      '--metrics-port',
      String(metricsPort),
    ]);
    const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const profile = (await custom.createClusterCustomObject({
      group: 'kubeflow.org',
      version: 'v1',
      plural: 'profiles',
      body: {
        apiVersion: 'kubeflow.org/v1',
        kind: 'Profile',
        metadata: { name: 'team-image', labels: { 'quotas.kfx.dev/requests.cpu': '6' } },
        spec: { owner: { kind: 'User', name: 'alice@example.com' } },
      },
    })) as ProfileLike;
    // As the upstream Kubeflow profile controller makes it: owned by the Profile.
    await core.createNamespace({ body: profileNamespace(profile) });
    const hard = await waitFor(
      async () => {
        const list = await core.listNamespacedResourceQuota({ namespace: 'team-image' });
        const quota = list.items[0];
        return quota
          ? { done: true, value: quota.spec?.hard }
          : { done: false, saw: 'no ResourceQuota yet' };
      },
      { description: 'the controller container to reconcile the Profile', timeoutMs: 60_000 },
    );
    expect(hard?.['requests.cpu']).toBe('6');
  });

  it('runs the CLI image: kfx renders the expose-api manifests', async () => {
    const out = await run('podman', [
      'run',
      '--rm',
      '--read-only',
      'localhost/kfx/cli:latest',
      'expose-api',
      'manifests',
      '--external-address',
      '203.0.113.10',
    ]);
    expect(out).toContain('kind: Deployment');
  });
});
