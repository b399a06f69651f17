// The kfx-webhook chart installed for real on a control plane with kwok (its Pods "run" on a fake
// node): every object accepted, bad values refused by the schema with their names, an upgrade
// with a new configuration rolling the Pods, and an uninstall that leaves nothing behind. Both
// TLS paths: cert-manager (minimal CRDs: API acceptance, not issuance) and a provided Secret.
// It owns its control plane: it installs the chart's webhook configuration (for every namespace)
// and cluster-wide RBAC of fixed names, and cert-manager's CRDs.
import type {
  KubernetesObject,
  V1Deployment,
  V1MutatingWebhookConfiguration,
  V1ReplicaSet,
} from '@kubernetes/client-node';
import {
  applyManifests,
  installCrds,
  startControlPlane,
  waitFor,
  type ControlPlane,
} from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CERT_MANAGER_CRDS } from './cert-manager.js';
import { chartRelease } from './chart-release.js';
import { createSettledNamespace, exists, getJson, listJson } from './cluster.js';
import { CHARTS, helm, helmOk } from './helm.js';
import { difference, inventory, settledInventory } from './inventory.js';
import { installedObjects, releaseRevision, waitForNothingLeft } from './release.js';
import { createServingSecret } from './serving-secret.js';

const NAMESPACE = 'kfx-system';
const RELEASE = 'kfx-webhook';
const SELECTOR = `app.kubernetes.io/instance=${RELEASE}`;

let env: ControlPlane | undefined;
let kubeconfig = '';

beforeAll(async () => {
  env = await startControlPlane({ components: ['controller-manager', 'scheduler', 'kwok'] });
  kubeconfig = env.kubeconfigPath;
  await installCrds(kubeconfig, [CERT_MANAGER_CRDS]);
  await createSettledNamespace(kubeconfig, NAMESPACE);
});

afterAll(async () => {
  await env?.stop();
});

const VALUES = {
  proxyInjector: {
    config: { httpProxy: 'http://proxy.corp.example:3128', namespaceConfigMap: 'kfx-proxy' },
  },
  pvcRewriter: {
    config: { rules: [{ accessModes: ['ReadWriteMany'], storageClassName: 'nfs-client' }] },
  },
};

const release = chartRelease(CHARTS.webhook, RELEASE, NAMESPACE, () => kubeconfig);
const { common, replicaSets } = release;
// The chart's NetworkPolicy renders only with the addresses the apiserver calls from; these
// tests are about cert-manager (the chart's default makes its own certificate).
const APISERVER = {
  networkPolicy: { apiServerCidrs: ['127.0.0.1/32'] },
  tls: { mode: 'cert-manager' },
};
const install = (values: object, ...extra: string[]) =>
  release.install({ ...APISERVER, ...values }, ...extra);

describe('helm install of the kfx-webhook chart, cert-manager mode', () => {
  let before: string[] = [];

  it('refuses bad values, naming each, and installs nothing', async () => {
    const cases: [string[], RegExp][] = [
      [['--set', 'replicaCount=0'], /replicaCount.*minimum: got 0, want 1/],
      [['--set', 'webhook.timeoutSeconds=60'], /webhook\/timeoutSeconds.*maximum: got 60, want 30/],
      [['--set', 'tls.mode=secret'], /tls\/caBundle/],
      [
        ['--set', 'proxyInjektor.enabled=true'],
        /additional properties 'proxyInjektor' not allowed/,
      ],
      [['--set', 'image.pullPolicy=Sometimes'], /image\/pullPolicy.*value must be one of/],
    ];
    before = await release.expectRefused(cases);
  });

  it('installs: the apiserver accepts every object and the two replicas run', async () => {
    const result = await install(VALUES, '--wait', '--timeout', '120s');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);

    const rendered = await installedObjects(kubeconfig, RELEASE, NAMESPACE);
    expect(rendered.map((id) => id.split(' ')[0]).sort()).toEqual([
      'Certificate.cert-manager.io',
      'ClusterRole.rbac.authorization.k8s.io',
      'ClusterRoleBinding.rbac.authorization.k8s.io',
      'ConfigMap',
      'Deployment.apps',
      'Issuer.cert-manager.io',
      'MutatingWebhookConfiguration.admissionregistration.k8s.io',
      'NetworkPolicy.networking.k8s.io',
      'PodDisruptionBudget.policy',
      'Service',
      'ServiceAccount',
    ]);
    const added = difference(before, await inventory(kubeconfig)).added;
    for (const id of rendered) expect(added).toContain(id);

    const deployment = await getJson<V1Deployment>(kubeconfig, ['deployment', RELEASE], NAMESPACE);
    expect(deployment.status?.readyReplicas).toBe(2);
    const pods = await listJson<{ spec?: { nodeName?: string } }>(
      kubeconfig,
      ['pods', '-l', SELECTOR],
      NAMESPACE,
    );
    expect(pods.map((pod) => pod.spec?.nodeName)).toEqual(['kwok-node-0', 'kwok-node-0']);

    const configuration = await getJson<V1MutatingWebhookConfiguration>(kubeconfig, [
      'mutatingwebhookconfiguration',
      RELEASE,
    ]);
    expect(configuration.metadata?.annotations?.['cert-manager.io/inject-ca-from']).toBe(
      `${NAMESPACE}/${RELEASE}-serving`,
    );
    expect(configuration.webhooks?.map((w) => w.clientConfig.service?.path)).toEqual([
      '/mutate/proxy-injector',
      '/mutate/pvc-rewriter',
    ]);
  });

  it('an upgrade that changes the configuration rolls the Pods onto a new ReplicaSet', async () => {
    const [old] = await replicaSets();
    expect(old).toBeDefined();
    const revision = await releaseRevision(kubeconfig, RELEASE, NAMESPACE);

    await helmOk([
      'upgrade',
      RELEASE,
      CHARTS.webhook,
      ...common(),
      '--reuse-values',
      '--set',
      'proxyInjector.config.httpsProxy=http://proxy-tls.corp.example:3129',
      '--wait',
      '--timeout',
      '120s',
    ]);
    expect(await releaseRevision(kubeconfig, RELEASE, NAMESPACE)).toBe(revision + 1);
    const configMap = await getJson<{ data: Record<string, string> }>(
      kubeconfig,
      ['configmap', `${RELEASE}-config`],
      NAMESPACE,
    );
    expect(parse(configMap.data['config.yaml'] ?? '')).toMatchObject({
      proxyInjector: { httpsProxy: 'http://proxy-tls.corp.example:3129' },
    });

    const rolled = await waitFor(
      async () => {
        const sets = await replicaSets();
        const fresh = sets.find((set) => set.metadata?.name !== old?.metadata?.name);
        const previous = sets.find((set) => set.metadata?.name === old?.metadata?.name);
        const done = fresh?.status?.readyReplicas === 2 && previous?.status?.replicas === 0;
        return done
          ? { done: true, value: fresh }
          : {
              done: false,
              saw: sets
                .map((s) => `${s.metadata?.name ?? ''}:${s.status?.readyReplicas ?? 0}`)
                .join(),
            };
      },
      {
        description: 'a new ReplicaSet with 2 ready Pods and the old one scaled to 0',
        timeoutMs: 60_000,
      },
    );
    const checksum = (set: V1ReplicaSet | undefined) =>
      set?.spec?.template?.metadata?.annotations?.['checksum/config'];
    expect(checksum(rolled)).toMatch(/^[0-9a-f]{64}$/);
    expect(checksum(rolled)).not.toBe(checksum(old));
  });

  it('an upgrade that leaves the configuration alone keeps the Pods', async () => {
    const sets = (await replicaSets()).map((set) => set.metadata?.name).sort();
    await helmOk([
      'upgrade',
      RELEASE,
      CHARTS.webhook,
      ...common(),
      '--reuse-values',
      '--set',
      'webhook.timeoutSeconds=7',
      '--wait',
    ]);
    const configuration = await getJson<V1MutatingWebhookConfiguration>(kubeconfig, [
      'mutatingwebhookconfiguration',
      RELEASE,
    ]);
    expect(configuration.webhooks?.map((w) => w.timeoutSeconds)).toEqual([7, 7]);
    expect((await replicaSets()).map((set) => set.metadata?.name).sort()).toEqual(sets);
  });

  it('refuses a bad value on upgrade and keeps the release as it was', async () => {
    const revision = await releaseRevision(kubeconfig, RELEASE, NAMESPACE);
    const result = await helm([
      'upgrade',
      RELEASE,
      CHARTS.webhook,
      ...common(),
      '--reuse-values',
      '--set',
      'replicaCount=0',
    ]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/replicaCount.*minimum: got 0, want 1/);
    expect(await releaseRevision(kubeconfig, RELEASE, NAMESPACE)).toBe(revision);
    const deployment = await getJson<V1Deployment>(kubeconfig, ['deployment', RELEASE], NAMESPACE);
    expect(deployment.spec?.replicas).toBe(2);
  });

  it('uninstalls without leaving anything behind, the webhook configuration included', async () => {
    await helmOk(['uninstall', RELEASE, ...common(), '--wait']);
    expect(await exists(kubeconfig, ['mutatingwebhookconfiguration', RELEASE])).toBe(false);
    await waitForNothingLeft(kubeconfig, before);
  });
});

describe('helm install of the kfx-webhook chart with a provided Secret', () => {
  it('uses the Secret and caBundle, renders no cert-manager object, and uninstalls clean', async () => {
    const { caCert } = await createServingSecret(kubeconfig, {
      name: 'webhook-tls',
      namespace: NAMESPACE,
      service: RELEASE,
    });
    const before = await settledInventory(kubeconfig);

    const result = await install(
      { tls: { mode: 'secret', secretName: 'webhook-tls', caBundle: caCert } },
      '--wait',
      '--timeout',
      '120s',
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const installed = await installedObjects(kubeconfig, RELEASE, NAMESPACE);
    expect(installed.some((id) => id.includes('cert-manager.io'))).toBe(false);
    const configuration = await getJson<V1MutatingWebhookConfiguration>(kubeconfig, [
      'mutatingwebhookconfiguration',
      RELEASE,
    ]);
    expect(configuration.metadata?.annotations?.['cert-manager.io/inject-ca-from']).toBeUndefined();
    for (const webhook of configuration.webhooks ?? []) {
      expect(Buffer.from(webhook.clientConfig.caBundle ?? '', 'base64').toString()).toBe(caCert);
    }
    const deployment = await getJson<V1Deployment>(kubeconfig, ['deployment', RELEASE], NAMESPACE);
    expect(
      deployment.spec?.template.spec?.volumes?.find((v) => v.name === 'tls')?.secret?.secretName,
    ).toBe('webhook-tls');
    expect(deployment.status?.readyReplicas).toBe(2);

    await helmOk(['uninstall', RELEASE, ...common(), '--wait']);
    await waitForNothingLeft(kubeconfig, before);
    // The Secret was the operator's, not the release's: it stays.
    expect(await exists(kubeconfig, ['secret', 'webhook-tls'], NAMESPACE)).toBe(true);
  });
});

describe('helm install of the kfx-webhook chart with an existing ClusterIssuer', () => {
  it('renders only a Certificate naming it, accepted by the apiserver, and uninstalls clean', async () => {
    await applyManifests(kubeconfig, {
      apiVersion: 'cert-manager.io/v1',
      kind: 'ClusterIssuer',
      metadata: { name: 'corp-ca' },
      spec: { ca: { secretName: 'corp-ca' } },
    } as KubernetesObject);
    const before = await settledInventory(kubeconfig);

    const issuerRef = { name: 'corp-ca', kind: 'ClusterIssuer' };
    const result = await install(
      { tls: { mode: 'cert-manager', certManager: { issuerRef } } },
      '--wait',
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const installed = await installedObjects(kubeconfig, RELEASE, NAMESPACE);
    expect(installed.filter((id) => id.includes('cert-manager.io'))).toEqual([
      `Certificate.cert-manager.io ${NAMESPACE}/${RELEASE}-serving`,
    ]);
    const certificate = await getJson<{ spec: { issuerRef: object; secretName: string } }>(
      kubeconfig,
      ['certificate', `${RELEASE}-serving`],
      NAMESPACE,
    );
    expect(certificate.spec.issuerRef).toEqual({ ...issuerRef, group: 'cert-manager.io' });
    expect(certificate.spec.secretName).toBe(`${RELEASE}-tls`);

    await helmOk(['uninstall', RELEASE, ...common(), '--wait']);
    await waitForNothingLeft(kubeconfig, before);
  });
});
