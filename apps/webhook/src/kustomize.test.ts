// The kustomize base under kustomize/ is the chart rendered by `helm template` with fixed values
// (namespace kubeflow, TLS from cert-manager or a CA file, the NetworkPolicy with a placeholder
// for the apiserver's addresses): `pnpm run kustomize` (vitest -u) rewrites the rendered files,
// otherwise a difference fails here. Then what `kubectl kustomize` builds from them, as a user
// builds it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildKustomization,
  renderBaseDocuments,
  yamlStream,
  type BaseDocument,
} from '@kfx/testenv';
import { describe, expect, it } from 'vitest';
import { Document } from 'yaml';
import { readmeBlock } from './testing/readme-blocks.js';

const chart = fileURLToPath(new URL('../chart', import.meta.url));
const kustomize = fileURLToPath(new URL('../kustomize', import.meta.url));
const guide = fileURLToPath(new URL('../../../docs/webhook/kustomize.md', import.meta.url));
const NAMESPACE = 'kubeflow';
const HEADER =
  '# Rendered from apps/webhook/chart by `pnpm --filter @kfx/webhook-app run kustomize`: edit the\n# chart or src/kustomize.test.ts, not this file.\n';
/** The NetworkPolicy's source until the user's patch replaces it: the apiserver refuses it. */
const CIDR_PLACEHOLDER = 'set-the-apiserver-cidrs';

const VALUES = {
  tls: { mode: 'cert-manager' },
  // Any address, for the chart to render the policy: the placeholder replaces it.
  networkPolicy: { apiServerCidrs: ['192.0.2.1/32'] },
  // A proxy, so that the base grants what proxy-injector reads; base/config.yaml names it and
  // the user replaces that file with theirs.
  proxyInjector: {
    config: {
      httpProxy: 'http://proxy.example.com:3128',
      httpsProxy: 'http://proxy.example.com:3128',
    },
  },
};

const pick = (docs: readonly BaseDocument[], ...kinds: string[]) =>
  docs.filter((d) => kinds.includes(d.kind));
const only = (docs: readonly BaseDocument[], kind: string): BaseDocument => {
  const [found] = pick(docs, kind);
  if (!found) throw new Error(`the chart rendered no ${kind}`);
  return found;
};

/** Every rendered file of kustomize/, by path, from the chart. */
async function renderFiles(): Promise<Record<string, string>> {
  const render = (values: object) =>
    renderBaseDocuments(chart, { release: 'kfx-webhook', namespace: NAMESPACE, values });
  const docs = await render(VALUES);
  // The configuration becomes a file of the base's configMapGenerator: a user replaces it, and a
  // new one rolls the Pods through its name's hash (the chart's checksum annotation would lie).
  const config = only(docs, 'ConfigMap').document.getIn(['data', 'config.yaml']);
  if (typeof config !== 'string') throw new Error('the ConfigMap has no config.yaml');
  only(docs, 'Deployment').document.deleteIn([
    'spec',
    'template',
    'metadata',
    'annotations',
    'checksum/config',
  ]);
  const hooks = only(docs, 'MutatingWebhookConfiguration');
  const annotations: unknown = hooks.document.getIn(['metadata', 'annotations'], false);
  hooks.document.deleteIn(['metadata', 'annotations']);
  const patch = new Document({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: hooks.name, annotations },
  });
  const policy = only(docs, 'NetworkPolicy');
  policy.document.setIn(['spec', 'ingress', 0, 'from'], [{ ipBlock: { cidr: CIDR_PLACEHOLDER } }]);
  const base = docs.filter((d) => !['ConfigMap', 'Issuer', 'Certificate'].includes(d.kind));
  return {
    'base/kfx-webhook.yaml': HEADER + yamlStream(base),
    'base/config.yaml': config,
    'overlays/cert-manager/certificate.yaml':
      HEADER + yamlStream(pick(docs, 'Issuer', 'Certificate')),
    'overlays/cert-manager/webhook-configuration.yaml':
      HEADER + patch.toString({ flowCollectionPadding: false }),
  };
}

interface Built {
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec?: Record<string, unknown>;
}

const build = (folder: string) => buildKustomization(folder) as Promise<Built[]>;

const find = (objects: readonly Built[], kind: string) => {
  const found = objects.find((o) => o.kind === kind);
  if (!found) throw new Error(`kubectl kustomize built no ${kind}`);
  return found;
};

describe('the kustomize base of kfx-webhook', () => {
  it('holds the chart rendered with the base values (pnpm run kustomize rewrites it)', async () => {
    for (const [file, text] of Object.entries(await renderFiles())) {
      await expect(text, `kustomize/${file}`).toMatchFileSnapshot(join(kustomize, file));
    }
  });

  it('builds the objects without Helm’s labels, the configuration from config.yaml', async () => {
    const objects = await build(join(kustomize, 'base'));
    expect(objects.map((o) => o.kind).sort()).toEqual([
      'ClusterRole',
      'ClusterRoleBinding',
      'ConfigMap',
      'Deployment',
      'MutatingWebhookConfiguration',
      'NetworkPolicy',
      'PodDisruptionBudget',
      'Service',
      'ServiceAccount',
    ]);
    for (const object of objects) {
      expect(object.metadata?.labels?.['helm.sh/chart'], object.kind).toBeUndefined();
      expect(
        object.metadata?.labels?.['app.kubernetes.io/managed-by'],
        object.kind,
      ).toBeUndefined();
    }
    const config = find(objects, 'ConfigMap');
    expect(config.metadata?.name).toMatch(/^kfx-webhook-[a-z0-9]{10}$/);
    expect(JSON.stringify(find(objects, 'Deployment').spec)).toContain(
      `"configMap":{"name":"${config.metadata?.name}"}`,
    );
    // No TLS source: the overlay or the user's kustomization adds one.
    expect(find(objects, 'MutatingWebhookConfiguration').metadata?.annotations).toBeUndefined();
  });

  it('has cert-manager make the Secret the Pods mount and inject its CA (the overlay)', async () => {
    const objects = await build(join(kustomize, 'overlays/cert-manager'));
    const certificate = find(objects, 'Certificate');
    expect(find(objects, 'MutatingWebhookConfiguration').metadata?.annotations).toEqual({
      'cert-manager.io/inject-ca-from': `${NAMESPACE}/${certificate.metadata?.name}`,
    });
    expect(certificate.spec).toMatchObject({
      secretName: 'kfx-webhook-tls',
      dnsNames: ['kfx-webhook.kubeflow.svc', 'kfx-webhook.kubeflow.svc.cluster.local'],
    });
    expect(JSON.stringify(find(objects, 'Deployment').spec)).toContain(
      '"secret":{"secretName":"kfx-webhook-tls"}',
    );
  });

  it('holds the NetworkPolicy, with the apiserver addresses the user patches in', async () => {
    const user = mkdtempSync(join(tmpdir(), 'kfx-kustomize-'));
    // kustomize takes only relative paths to other kustomizations.
    const from = (folder: string) => relative(user, join(kustomize, folder));
    try {
      writeFileSync(
        join(user, 'kustomization.yaml'),
        `resources: [${from('overlays/cert-manager')}]
patches:
  - target: { kind: NetworkPolicy, name: kfx-webhook }
    patch: |-
      - op: replace
        path: /spec/ingress/0/from
        value: [{ ipBlock: { cidr: 10.0.0.10/32 } }]
`,
      );
      const policy = find(await build(user), 'NetworkPolicy');
      expect(policy.metadata?.namespace).toBe(NAMESPACE);
      expect(policy.spec?.ingress).toEqual([
        { from: [{ ipBlock: { cidr: '10.0.0.10/32' } }], ports: [{ port: 8443, protocol: 'TCP' }] },
      ]);
      // Without the patch the placeholder stays, which the apiserver refuses.
      writeFileSync(join(user, 'kustomization.yaml'), `resources: [${from('base')}]\n`);
      expect(JSON.stringify(find(await build(user), 'NetworkPolicy').spec)).toContain(
        CIDR_PLACEHOLDER,
      );
      // Left out as the docs say, where nothing enforces it.
      writeFileSync(
        join(user, 'kustomization.yaml'),
        `resources: [${from('base')}]\n${readmeBlock(guide, 'patch-no-network-policy')}`,
      );
      expect((await build(user)).map((o) => o.kind)).not.toContain('NetworkPolicy');
    } finally {
      rmSync(user, { recursive: true, force: true });
    }
  });
});
