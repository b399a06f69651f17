// The kustomize base as the README deploys it, built and applied to a real kube-apiserver: what
// `kubectl apply -k .` makes of the README's kustomization in a folder beside the clone (kfx/).
// The base keeps tenants off the webhook port as the chart does: the chart's NetworkPolicy, with
// the apiserver addresses the README's patch gives; without them the apply is refused, as
// `helm template` refuses to render. It owns its control plane: it registers the base's webhook
// configuration (a fixed name, for every namespace but the excluded ones) and its ClusterRoles.
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildKustomization,
  kubectl,
  renderChart,
  runKubectl,
  startControlPlane,
  type ControlPlane,
  type Rendered,
} from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readmeBlock } from './testing/readme-blocks.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const chart = fileURLToPath(new URL('../chart', import.meta.url));
const readme = join(root, 'apps/webhook/README.md');
const kustomize = join(root, 'apps/webhook/kustomize');
const NAMESPACE = 'kubeflow';
/** The address the README's patch names, which a user replaces with theirs. */
const README_CIDR = '10.0.0.10/32';

interface Policy {
  spec: { podSelector: object; policyTypes: string[]; ingress: object[] };
}

let env: ControlPlane | undefined;
const work = mkdtempSync(join(tmpdir(), 'kfx-webhook-kustomize-'));

const kubeconfig = () => env?.kubeconfigPath ?? '';
const write = (file: string, text: string) => {
  writeFileSync(join(work, file), text);
};
/** The objects the real apiserver knows (the test plane has no cert-manager CRDs). */
const core = (objects: readonly Rendered[]) =>
  objects.filter((o) => !(o.apiVersion ?? '').startsWith('cert-manager.io/'));
const apply = (objects: readonly Rendered[]) =>
  runKubectl(
    kubeconfig(),
    ['apply', '--server-side', '-f', '-'],
    core(objects)
      .map((o) => JSON.stringify(o))
      .join('\n---\n'),
  );

beforeAll(async () => {
  symlinkSync(root, join(work, 'kfx'));
  env = await startControlPlane();
  await kubectl(env.kubeconfigPath, ['create', 'namespace', NAMESPACE]);
});

afterAll(async () => {
  await env?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('the kustomize base applied as the README says', () => {
  it('lets only the apiserver reach the webhook port, with the chart’s NetworkPolicy', async () => {
    // What the chart renders for the README's address, in the same namespace.
    const rendered = await renderChart(chart, {
      release: 'kfx-webhook',
      namespace: NAMESPACE,
      values: { networkPolicy: { apiServerCidrs: [README_CIDR] } },
    });
    const policy = rendered.find((o) => o.kind === 'NetworkPolicy') as
      (Rendered & Policy) | undefined;
    // The cert-manager overlay builds it too (its Certificate needs cert-manager to apply).
    write(
      'config.yaml',
      readFileSync(join(kustomize, 'overlays/cert-manager/config.yaml'), 'utf8'),
    );
    write('kustomization.yaml', readmeBlock(readme, 'kustomization-cert-manager'));
    const overlay = (await buildKustomization(work)).find((o) => o.kind === 'NetworkPolicy');
    expect((overlay as (Rendered & Policy) | undefined)?.spec).toEqual(policy?.spec);

    write('config.yaml', readFileSync(join(kustomize, 'base/config.yaml'), 'utf8'));
    write('kustomization.yaml', readmeBlock(readme, 'kustomization-base'));
    const objects = await buildKustomization(work);
    expect(objects.map((o) => o.kind)).toContain('NetworkPolicy');
    const applied = await apply(objects);
    expect(applied.code, applied.stderr).toBe(0);
    const stored = JSON.parse(
      await kubectl(kubeconfig(), [
        ...['get', 'networkpolicy', '-n', NAMESPACE, 'kfx-webhook', '-o', 'json'],
      ]),
    ) as Policy;
    expect(stored.spec).toEqual(policy?.spec);
    const deployment = JSON.parse(
      await kubectl(kubeconfig(), [
        ...['get', 'deployment', '-n', NAMESPACE, 'kfx-webhook', '-o', 'json'],
      ]),
    ) as { spec: { selector: { matchLabels: object } } };
    expect(stored.spec.podSelector).toEqual({ matchLabels: deployment.spec.selector.matchLabels });
  });

  it('is refused without the apiserver addresses, as helm template refuses to render', async () => {
    write('kustomization.yaml', 'resources: [kfx/apps/webhook/kustomize/base]\n');
    const objects = await buildKustomization(work);
    const applied = await apply(objects);
    expect(applied.code).not.toBe(0);
    expect(applied.stderr).toMatch(/NetworkPolicy.*kfx-webhook|networkpolicies.*kfx-webhook/i);
  });
});
