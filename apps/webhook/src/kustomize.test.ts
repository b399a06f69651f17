// The kustomize folders under kustomize/ are the chart rendered by `helm template` with fixed
// values (namespace kubeflow, the NetworkPolicy with a placeholder for the apiserver's addresses):
// base/ in tls.mode=self-managed, so that it runs with nothing else in the cluster, and
// overlays/cert-manager/ the patches that make it the chart in tls.mode=cert-manager (the objects
// only that mode has, those only the base has deleted, the Deployment's Secret volume, its own
// config.yaml). `pnpm run kustomize` (vitest -u) rewrites the rendered files, otherwise a
// difference fails here. Then what `kubectl kustomize` builds from them is compared with what the
// chart renders in either mode, and built as a user builds it.
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
  // Any address, for the chart to render the policy: the placeholder replaces it.
  networkPolicy: { apiServerCidrs: ['192.0.2.1/32'] },
  // A proxy, so that the base grants what proxy-injector reads; config.yaml names it and the
  // user replaces that file with theirs.
  proxyInjector: {
    config: {
      httpProxy: 'http://proxy.example.com:3128',
      httpsProxy: 'http://proxy.example.com:3128',
    },
  },
};
const MODES = { base: 'self-managed', certManager: 'cert-manager' } as const;

const pick = (docs: readonly BaseDocument[], ...kinds: string[]) =>
  docs.filter((d) => kinds.includes(d.kind));
const only = (docs: readonly BaseDocument[], kind: string): BaseDocument => {
  const [found] = pick(docs, kind);
  if (!found) throw new Error(`the chart rendered no ${kind}`);
  return found;
};
const key = (d: { kind: string; name: string }) => `${d.kind}/${d.name}`;

/**
 * The chart in one TLS mode, as the kustomize folders hold it: the configuration apart (it
 * becomes a file of the configMapGenerator: a user replaces it, and a new one rolls the Pods
 * through its name's hash, so the chart's checksum annotation goes), the NetworkPolicy's source
 * the placeholder.
 */
async function renderMode(mode: string) {
  const docs = await renderBaseDocuments(chart, {
    release: 'kfx-webhook',
    namespace: NAMESPACE,
    values: { ...VALUES, tls: { mode } },
  });
  const config = only(docs, 'ConfigMap').document.getIn(['data', 'config.yaml']);
  if (typeof config !== 'string') throw new Error('the ConfigMap has no config.yaml');
  only(docs, 'Deployment').document.deleteIn([
    'spec',
    'template',
    'metadata',
    'annotations',
    'checksum/config',
  ]);
  const policy = only(docs, 'NetworkPolicy');
  policy.document.setIn(['spec', 'ingress', 0, 'from'], [{ ipBlock: { cidr: CIDR_PLACEHOLDER } }]);
  const configMapName = only(docs, 'ConfigMap').name;
  return { docs: docs.filter((d) => d.kind !== 'ConfigMap'), config, configMapName };
}

const patchFile = (...documents: Document[]) =>
  HEADER +
  documents.map((d) => d.toString({ lineWidth: 0, flowCollectionPadding: false })).join('---\n');

/** Every rendered file of kustomize/, by path, from the chart. */
async function renderFiles(): Promise<Record<string, string>> {
  const base = await renderMode(MODES.base);
  const certManager = await renderMode(MODES.certManager);
  const inBase = new Set(base.docs.map(key));
  const inCertManager = new Set(certManager.docs.map(key));
  // The base's own TLS objects (its Secret, the rights to it and to the caBundle) go.
  const drops = base.docs
    .filter((d) => !inCertManager.has(key(d)))
    .map((d) => {
      const namespace: unknown = d.document.getIn(['metadata', 'namespace']);
      return new Document({
        $patch: 'delete',
        apiVersion: d.document.get('apiVersion'),
        kind: d.kind,
        metadata: { name: d.name, ...(typeof namespace === 'string' ? { namespace } : {}) },
      });
    });
  // The Deployment mounts cert-manager's Secret. The patch lists every volume and mount, in the
  // chart's order: a strategic merge puts the patch's items first.
  const deployment = only(certManager.docs, 'Deployment');
  const { spec } = deployment.document.toJS() as {
    spec: {
      template: {
        spec: { containers: { name: string; volumeMounts: object[] }[]; volumes: object[] };
      };
    };
  };
  const [container] = spec.template.spec.containers;
  if (!container) throw new Error('the chart rendered a Deployment without a container');
  const mount = new Document({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: deployment.name, namespace: NAMESPACE },
    spec: {
      template: {
        spec: {
          containers: [{ name: container.name, volumeMounts: container.volumeMounts }],
          volumes: spec.template.spec.volumes,
        },
      },
    },
  });
  const hooks = only(certManager.docs, 'MutatingWebhookConfiguration');
  const inject = new Document({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: hooks.name, annotations: hooks.document.getIn(['metadata', 'annotations']) },
  });
  return {
    'base/kfx-webhook.yaml': HEADER + yamlStream(base.docs),
    'base/config.yaml': base.config,
    'overlays/cert-manager/certificate.yaml':
      HEADER + yamlStream(certManager.docs.filter((d) => !inBase.has(key(d)))),
    'overlays/cert-manager/config.yaml': certManager.config,
    'overlays/cert-manager/webhook-configuration.yaml': patchFile(inject),
    'overlays/cert-manager/deployment.yaml': patchFile(mount),
    'overlays/cert-manager/drop-self-managed.yaml': patchFile(...drops),
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
  data?: Record<string, string>;
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

  it('builds what the chart renders: the base in self-managed mode, the overlay in cert-manager mode', async () => {
    const folders = [
      ['base', MODES.base],
      ['overlays/cert-manager', MODES.certManager],
    ] as const;
    for (const [folder, mode] of folders) {
      const rendered = await renderMode(mode);
      const built = await build(join(kustomize, folder));
      const configMap = find(built, 'ConfigMap');
      expect(configMap.data?.['config.yaml'], `${folder}: config.yaml`).toBe(rendered.config);
      // The generator's name, with its hash, where the chart names the ConfigMap.
      const hashed = `"name":"${configMap.metadata?.name ?? ''}"`;
      const plain = `"name":"${rendered.configMapName}"`;
      const objects = new Map(
        built
          .filter((o) => o.kind !== 'ConfigMap')
          .map((o) => [
            `${o.kind ?? ''}/${o.metadata?.name ?? ''}`,
            JSON.parse(JSON.stringify(o).replaceAll(hashed, plain)) as unknown,
          ]),
      );
      expect([...objects.keys()].sort(), folder).toEqual(rendered.docs.map(key).sort());
      for (const doc of rendered.docs) {
        expect(objects.get(key(doc)), `${folder}: ${key(doc)}`).toEqual(doc.document.toJS());
      }
    }
  });

  it('builds the objects without Helm’s labels, the configuration from config.yaml', async () => {
    const objects = await build(join(kustomize, 'base'));
    expect(objects.map((o) => o.kind).sort()).toEqual([
      'ClusterRole',
      'ClusterRole',
      'ClusterRoleBinding',
      'ClusterRoleBinding',
      'ConfigMap',
      'Deployment',
      'MutatingWebhookConfiguration',
      'NetworkPolicy',
      'PodDisruptionBudget',
      'Role',
      'RoleBinding',
      'Secret',
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
    expect(config.metadata?.name).toMatch(/^kfx-webhook-config-[a-z0-9]{10}$/);
    expect(JSON.stringify(find(objects, 'Deployment').spec)).toContain(
      `"configMap":{"name":"${config.metadata?.name}"}`,
    );
    // Self-managed: an empty Secret, and no caBundle, which the webhook fills.
    expect(find(objects, 'Secret')).toMatchObject({ metadata: { name: 'kfx-webhook-certs' } });
    expect(find(objects, 'Secret').data).toBeUndefined();
    expect(JSON.stringify(find(objects, 'MutatingWebhookConfiguration'))).not.toContain('caBundle');
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
    expect(objects.map((o) => o.kind)).not.toContain('Role');
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
