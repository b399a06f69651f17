// The rendered manifests against the real thing: the apiserver accepts every Kubernetes object
// under strict field validation (a misspelt field fails), and the Helm chart, rendered by the
// real helm binary, yields exactly the objects of the YAML renderer for the same options.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient, resourcePath } from '@kfx/kube-runtime/client';
import {
  helm,
  parseYamlDocuments,
  useSharedControlPlane,
  type SharedControlPlane,
} from '@kfx/testenv';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { renderManifests, type RenderManifestsOptions } from '../index.js';

let env: SharedControlPlane;
let client: KubeClient;
const scratch = mkdtempSync(join(tmpdir(), 'kfx-exposer-manifests-'));

beforeAll(async () => {
  env = await useSharedControlPlane(inject('kfxControlPlane'), 'exposer-manifests');
  client = KubeClient.fromKubeConfig(env.kubeConfig, { logger: pino({ level: 'silent' }) });
});
afterAll(async () => {
  client.close();
  await env.release();
  rmSync(scratch, { recursive: true, force: true });
});

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
}

const IMAGE = 'kfx/cli:1.2.3';

const VARIANTS: Record<string, Omit<RenderManifestsOptions, 'image'>> = {
  'LoadBalancer, self-signed CA, two replicas': { externalAddress: ['203.0.113.10'] },
  'Ingress for a DNS name and an IP': {
    externalAddress: ['k8s-api.example.org', '203.0.113.10'],
    expose: 'ingress',
    ingressClass: 'nginx-internal',
  },
  'Ingress for an IP only': { externalAddress: ['203.0.113.10'], expose: 'ingress' },
  'NodePort, existing issuer, one replica, no upgrades, own paths': {
    externalAddress: ['198.51.100.7'],
    expose: 'nodeport',
    nodePort: 30643,
    issuer: 'ClusterIssuer/corp-ca',
    replicas: 1,
    upgrades: false,
    allowPath: ['/api', '/apis/batch'],
  },
  // The remote namespace is the file's own (the dry run needs it to exist): see namespaced().
  'NodePort, remote nodes, a certificate of my own': {
    externalAddress: ['198.51.100.7'],
    expose: 'nodeport',
    remoteNodes: ['interlink-slurm', 'interlink-htcondor'],
    remoteNamespaces: ['REMOTE'],
    interlinkConfig: 'REMOTE/interlink-values',
    tlsSecret: 'my-exposer-tls',
  },
};

/** A variant's options with the file's namespace for the remote one. */
const namespaced = (options: Omit<RenderManifestsOptions, 'image'>) => ({
  ...options,
  ...(options.remoteNamespaces ? { remoteNamespaces: [env.namespace] } : {}),
  ...(options.interlinkConfig ? { interlinkConfig: `${env.namespace}/interlink-values` } : {}),
});

/** Server-side apply as a dry run with strict field validation: nothing is stored. */
async function dryRunApply(object: Obj): Promise<void> {
  const ref = await client.resolve(object.apiVersion, object.kind);
  const path = resourcePath(ref, {
    namespace: object.metadata.namespace,
    name: object.metadata.name,
  });
  await client.request('PATCH', path, {
    query: { fieldManager: 'kfx-test', dryRun: 'All', fieldValidation: 'Strict', force: true },
    body: object,
    contentType: 'application/apply-patch+yaml',
  });
}

describe('rendered manifests', () => {
  for (const [variant, options] of Object.entries(VARIANTS)) {
    it(`are accepted by the apiserver under strict validation: ${variant}`, async () => {
      // Into the file's namespace: a dry run of namespaced objects needs theirs to exist.
      const { objects } = await renderManifests({
        ...namespaced(options),
        image: IMAGE,
        namespace: env.namespace,
      });
      const kubernetes = (objects as Obj[]).filter(
        (o) => !o.apiVersion.startsWith('cert-manager.io/'),
      );
      expect(kubernetes.length).toBeGreaterThanOrEqual(3);
      for (const object of kubernetes) await dryRunApply(object);
    });

    it(`render the same objects through helm template: ${variant}`, async () => {
      const chart = join(scratch, variant.replace(/\W+/g, '-'));
      const { objects } = await renderManifests({
        ...namespaced(options),
        image: IMAGE,
        format: 'helm',
        output: chart,
      });
      expect(await helm(['lint', '--strict', chart])).toContain(
        '1 chart(s) linted, 0 chart(s) failed',
      );
      const stdout = await helm(['template', 'kfx-expose-api', chart, '--namespace', 'kfx-system']);
      const fromHelm = parseYamlDocuments<Obj>(stdout, `helm template kfx-expose-api ${chart}`);
      const key = (o: Obj) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
      const sorted = (list: Obj[]) => [...list].sort((a, b) => key(a).localeCompare(key(b)));
      expect(sorted(fromHelm)).toEqual(sorted(objects as Obj[]));
    });
  }
});
