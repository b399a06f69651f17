// The kustomize bases (apps/*/kustomize) deployed as their READMEs say, on a real node. In a
// folder beside the clone (kfx/): the webhook's config.yaml (the base's, with the user's proxy)
// and the README's kustomization of the base (its NetworkPolicy patch naming the address the
// apiserver calls from here), then its command word for word: `kubectl apply -k .`. The base
// runs in self-managed TLS: the webhook's Pods, from the image `npm run images` builds, fill
// the empty Secret the base renders, put its CA into every caBundle and get ready, and a Pod
// created in another namespace is injected: the apiserver called the webhook through its
// Service and trusted the CA the webhook wrote. The README's cert-manager kustomization builds
// (this node has no cert-manager). The controller's base, applied as its README says,
// converges a Profile.
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { V1Pod } from '@kubernetes/client-node';
import { containersUnavailable } from '@kfx/images';
import {
  buildKustomization,
  kubectl,
  PAUSE_IMAGE,
  startControlPlane,
  type ControlPlane,
} from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createThroughWebhook } from '../admission.js';
import { createSettledNamespace, getJson } from '../cluster.js';
import { readGuide } from '../guide.js';
import { runGuideCommands } from '../guide-commands.js';
import { commandLines } from '../shell-words.js';
import { loadAppImages } from './app-images.js';
import { onRealNode, readyDeployment, realNodeAvailable } from './pods.js';
import { expectProfileConverged } from './profile-convergence.js';

const root = fileURLToPath(new URL('../../../..', import.meta.url));
const NAMESPACE = 'kubeflow';
const PROXY = 'http://proxy.corp.example:3128';
/** The apiserver address in the README's NetworkPolicy patch, which the user replaces. */
const GUIDE_CIDR = '10.0.0.10/32';
const webhookReadme = readGuide(join(root, 'apps/webhook/README.md'));
const controllerReadme = readGuide(join(root, 'apps/controller/README.md'));
const noImages = realNodeAvailable ? await containersUnavailable() : undefined;
const title = noImages
  ? `the kustomize bases applied on a real node (skipped: ${noImages})`
  : onRealNode('the kustomize bases applied on a real node');

// The user's folder: the clone as kfx/, and what they write beside it.
const work = mkdtempSync(join(tmpdir(), 'kfx-e2e-kustomize-'));
let env: ControlPlane | undefined;
let images: string[] = [];

const kubeconfig = () => env?.kubeconfigPath ?? '';
const write = (file: string, text: string) => {
  writeFileSync(join(work, file), text);
};
/**
 * The user's kustomization: the README's, with the address their kube-apiserver calls webhooks
 * from in the NetworkPolicy's patch (here the host's address on the node's network).
 */
const withApiServer = (kustomization: string) => {
  if (!kustomization.includes(GUIDE_CIDR))
    throw new Error(`no ${GUIDE_CIDR} in the README's block`);
  return kustomization.replaceAll(GUIDE_CIDR, `${env?.node?.hostIp ?? ''}/32`);
};
/** The user's config.yaml: the one of the folder they deploy, with their proxy. */
const userConfig = (folder: 'base' | 'overlays/cert-manager') =>
  readFileSync(join(root, 'apps/webhook/kustomize', folder, 'config.yaml'), 'utf8').replaceAll(
    'http://proxy.example.com:3128',
    PROXY,
  );

describe.skipIf(!realNodeAvailable || noImages !== undefined)(title, () => {
  beforeAll(async () => {
    symlinkSync(root, join(work, 'kfx'));
    env = await startControlPlane({ components: ['node'] });
    if (!env.node) throw new Error('startControlPlane made no node');
    images = await loadAppImages(env.node, ['webhook', 'controller']);
    // Kubeflow's namespace, which a Kubeflow cluster has.
    await createSettledNamespace(kubeconfig(), NAMESPACE);
  });

  afterAll(async () => {
    await env?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('builds the README’s cert-manager kustomization with the user’s configuration', async () => {
    write('config.yaml', userConfig('overlays/cert-manager'));
    write('kustomization.yaml', withApiServer(webhookReadme.text('kustomization-cert-manager')));
    const objects = await buildKustomization(work);
    const config = objects.find((o) => o.kind === 'ConfigMap');
    expect(JSON.stringify(config?.data)).toContain(PROXY);
    const deployment = JSON.stringify(objects.find((o) => o.kind === 'Deployment'));
    expect(deployment).toContain(`"configMap":{"name":"${config?.metadata?.name ?? ''}"}`);
    expect(objects.map((o) => o.kind)).toEqual(
      expect.arrayContaining(['Certificate', 'Issuer', 'NetworkPolicy']),
    );
  });

  it('serves the webhook with the certificate it keeps itself and injects a Pod', async () => {
    write('config.yaml', userConfig('base'));
    write('kustomization.yaml', withApiServer(webhookReadme.text('kustomization-base')));
    await runGuideCommands(commandLines(webhookReadme.text('apply-base')), {
      cwd: work,
      kubeconfigPath: kubeconfig(),
    });
    // Ready only once the webhook configuration trusts the certificate they serve.
    const deployment = await readyDeployment(kubeconfig(), 'kfx-webhook', NAMESPACE);
    expect(images).toContain(deployment.spec?.template.spec?.containers[0]?.image);
    // The Secret the base made empty holds their certificate; every webhook trusts its CA.
    const secret = await getJson<{ data?: Record<string, string> }>(
      kubeconfig(),
      ['secret', 'kfx-webhook-certs'],
      NAMESPACE,
    );
    const ca = Buffer.from(secret.data?.['ca.crt'] ?? '', 'base64').toString();
    expect(ca).toContain('-----BEGIN CERTIFICATE-----');
    const hooks = await getJson<{ webhooks: { clientConfig: { caBundle?: string } }[] }>(
      kubeconfig(),
      ['mutatingwebhookconfiguration', 'kfx-webhook'],
    );
    expect(hooks.webhooks).toHaveLength(2);
    for (const hook of hooks.webhooks) {
      expect(Buffer.from(hook.clientConfig.caBundle ?? '', 'base64').toString()).toBe(ca);
    }
    // Only the apiserver may reach the webhook port: the policy holds its address.
    const policy = await getJson<{ spec: { ingress: unknown[] } }>(
      kubeconfig(),
      ['networkpolicy', 'kfx-webhook'],
      NAMESPACE,
    );
    expect(policy.spec.ingress).toEqual([
      {
        from: [{ ipBlock: { cidr: `${env?.node?.hostIp ?? ''}/32` } }],
        ports: [{ port: 8443, protocol: 'TCP' }],
      },
    ]);

    await createSettledNamespace(kubeconfig(), 'team-a');
    const podNamed = (name: string): V1Pod => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'team-a' },
      spec: { containers: [{ name: 'app', image: PAUSE_IMAGE }] },
    });
    const pod = podNamed('app');
    // The API server takes the new caBundle and the Service's endpoints up a moment after the
    // rollout is ready; with failurePolicy Ignore a Pod created in that moment is not injected.
    const created = await createThroughWebhook<V1Pod>(
      kubeconfig(),
      pod,
      (admitted) => admitted.metadata?.annotations?.['proxy-injector.kfx.dev/injected'] === 'true',
    );
    // Then every call is injected, whichever replica the Service picks: each serves the
    // certificate the caBundle trusts (one that got it while starting once kept its first).
    for (let i = 0; i < 10; i += 1) {
      const again = JSON.parse(
        await kubectl(
          kubeconfig(),
          ['create', '--dry-run=server', '-o', 'json', '-f', '-'],
          JSON.stringify(podNamed(`again-${String(i)}`)),
        ),
      ) as V1Pod;
      expect(
        again.metadata?.annotations?.['proxy-injector.kfx.dev/injected'],
        `again-${String(i)}`,
      ).toBe('true');
    }
    expect(created.metadata?.annotations?.['proxy-injector.kfx.dev/injected']).toBe('true');
    expect(created.spec?.containers[0]?.env).toContainEqual({ name: 'HTTP_PROXY', value: PROXY });
  });

  it('runs the controller base, which converges a Profile', async () => {
    await runGuideCommands(commandLines(controllerReadme.text('apply-base')), {
      cwd: work,
      kubeconfigPath: kubeconfig(),
    });
    const deployment = await readyDeployment(kubeconfig(), 'kfx-controller', NAMESPACE);
    expect(images).toContain(deployment.spec?.template.spec?.containers[0]?.image);
    await expectProfileConverged(kubeconfig(), 'team-b');
  });
});
