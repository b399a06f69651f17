// The check of docs/migration/from-proxy-configmap.md: with the guide's Helm values, the real
// kfx-controller binary keeps the guide's ConfigMap, key for key, in a namespace that had the
// hand-made copy and in a new Profile's namespace, and puts a deleted one back.
// It owns its control plane: kfx-controller acts on every Profile of the cluster.
import type { KubernetesObject, V1ConfigMap } from '@kubernetes/client-node';
import {
  applyManifests,
  profileNamespace,
  startControlPlane,
  waitFor,
  type ControlPlane,
} from '@kfx/testenv';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson } from '../cluster.js';
import { startControllerFromChart, type ControllerUnderTest } from '../controller-server.js';
import { readGuide } from '../guide.js';
import { kubectl as kubectlOk } from '@kfx/testenv';

const guide = readGuide('from-proxy-configmap.md');
const [old] = guide.yaml<V1ConfigMap>('old-configmap');
const name = old?.metadata?.name ?? '';
const dir = mkdtempSync(join(tmpdir(), 'kfx-e2e-proxy-configmap-'));
let env: ControlPlane | undefined;
let controller: ControllerUnderTest | undefined;
let kubeconfig = '';

const profile = (profileName: string): KubernetesObject =>
  ({
    apiVersion: 'kubeflow.org/v1',
    kind: 'Profile',
    metadata: { name: profileName },
    spec: { owner: { kind: 'User', name: `${profileName}@example.com` } },
  }) as KubernetesObject;

beforeAll(async () => {
  if (!old) throw new Error(`${guide.file}: the old-configmap block holds no ConfigMap`);
  env = await startControlPlane();
  kubeconfig = env.kubeconfigPath;
  const profiles = await applyManifests(kubeconfig, [profile('alice'), profile('bob')]);
  // The namespaces come from the upstream Kubeflow profile controller (owned by their Profiles);
  // alice had the script's copy.
  await applyManifests(kubeconfig, profiles.map(profileNamespace));
  await kubectlOk(kubeconfig, ['apply', '-f', '-'], JSON.stringify(old));
  controller = await startControllerFromChart({
    values: guide.text('controller-values'),
    kubeconfigPath: kubeconfig,
    dir,
  });
});

afterAll(async () => {
  await controller?.stop();
  await env?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The ConfigMap once kfx-controller has applied it. */
function kept(namespace: string): Promise<V1ConfigMap> {
  return waitFor(
    async () => {
      const configMap = await getJson<V1ConfigMap>(kubeconfig, ['configmap', name], namespace);
      return configMap.metadata?.labels?.['kfx.dev/reconciler'] === 'proxy-config'
        ? { done: true, value: configMap }
        : { done: false, saw: `labels ${JSON.stringify(configMap.metadata?.labels ?? {})}` };
    },
    { description: `kfx-controller to apply ConfigMap ${namespace}/${name}`, timeoutMs: 60_000 },
  );
}

describe(guide.file, () => {
  it.each(['alice', 'bob'])(
    'namespace %s gets the old ConfigMap, key for key',
    async (namespace) => {
      expect((await kept(namespace)).data).toEqual(old?.data);
    },
  );

  it('puts a deleted ConfigMap back', async () => {
    const before = await kept('bob');
    await kubectlOk(kubeconfig, ['delete', 'configmap', name, '-n', 'bob']);
    const back = await kept('bob');
    expect(back.metadata?.uid).not.toBe(before.metadata?.uid);
    expect(back.data).toEqual(old?.data);
  });
});
