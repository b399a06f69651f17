import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Deployment, V1Ingress, V1Service } from '@kubernetes/client-node';
import { parseYamlDocuments } from '@kfx/testenv';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { CertManagerObject } from '../manifests/certificates.js';
import { renderManifests, type RenderManifestsOptions } from './manifests.js';

interface Named {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
}

async function render(options: Partial<RenderManifestsOptions> = {}) {
  const { objects, yaml } = await renderManifests({
    externalAddress: ['203.0.113.10'],
    image: 'kfx/cli:1.2.3',
    ...options,
  });
  const find = (kind: string, name?: string): unknown =>
    (objects as Named[]).find(
      (o) => o.kind === kind && (name === undefined || o.metadata.name === name),
    );
  return { objects: objects as Named[], yaml: yaml ?? '', find };
}

const problems = (options: Partial<RenderManifestsOptions>) =>
  renderManifests({ externalAddress: ['203.0.113.10'], image: 'kfx/cli:1.2.3', ...options }).then(
    () => 'no error',
    (error: unknown) => (error as Error).message,
  );

describe('renderManifests', () => {
  it('quotes annotation values kubectl would read as booleans (ingress-nginx "off")', async () => {
    const { yaml } = await render({ expose: 'ingress', externalAddress: ['k8s-api.example.org'] });
    // kubectl parses YAML 1.1, where a bare off is false and fails an annotation's string type.
    const docs = parseYamlDocuments<Partial<V1Ingress>>(yaml, 'renderManifests', {
      version: '1.1',
    });
    const ingress = docs.find((d) => d.kind === 'Ingress');
    const annotations = ingress?.metadata?.annotations ?? {};
    expect(annotations['nginx.ingress.kubernetes.io/proxy-buffering']).toBe('off');
    expect(Object.values(annotations).every((v) => typeof v === 'string')).toBe(true);
  });

  it('puts the external IP and DNS names, and the Service names, into a certificate of weeks, not years', async () => {
    const { find } = await render({ externalAddress: ['203.0.113.10', 'k8s-api.example.org'] });
    const serving = find('Certificate', 'kfx-expose-api') as CertManagerObject | undefined;
    expect(serving?.spec).toMatchObject({
      secretName: 'kfx-expose-api-tls',
      ipAddresses: ['203.0.113.10'],
      dnsNames: [
        'k8s-api.example.org',
        'kfx-expose-api.kfx-system.svc',
        'kfx-expose-api.kfx-system.svc.cluster.local',
      ],
      duration: '2160h',
      renewBefore: '720h',
      privateKey: { rotationPolicy: 'Always' },
      issuerRef: { kind: 'Issuer', name: 'kfx-expose-api-ca' },
    });
    // The self-signed CA lives two years and keeps its key on renewal.
    expect(
      (find('Certificate', 'kfx-expose-api-ca') as CertManagerObject | undefined)?.spec,
    ).toMatchObject({
      isCA: true,
      duration: '17520h',
      privateKey: { rotationPolicy: 'Never' },
    });
  });

  it('uses an existing issuer instead of rendering a CA', async () => {
    const { objects, find } = await render({ issuer: 'ClusterIssuer/corp-ca' });
    expect(objects.filter((o) => o.kind === 'Issuer')).toEqual([]);
    expect((find('Certificate') as CertManagerObject | undefined)?.spec.issuerRef).toEqual({
      group: 'cert-manager.io',
      kind: 'ClusterIssuer',
      name: 'corp-ca',
    });
  });

  it('runs the proxy without any API credential, with the certificate mounted so renewals reach it', async () => {
    const { find } = await render({ allowPath: ['/api', '/apis'], upgrades: false });
    const pod = (find('Deployment') as V1Deployment | undefined)?.spec?.template.spec;
    expect(pod?.automountServiceAccountToken).toBe(false);
    const container = pod?.containers[0];
    expect(container?.args).toEqual(
      expect.arrayContaining([
        '--allow-path=/api',
        '--allow-path=/apis',
        '--no-upgrades',
        '--upstream-ca=/etc/kfx-expose-api/kube-ca/ca.crt',
      ]),
    );
    expect(container?.volumeMounts?.every((m) => m.subPath === undefined)).toBe(true);
    expect(pod?.volumes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          secret: expect.objectContaining({ secretName: 'kfx-expose-api-tls' }) as unknown,
        }),
        expect.objectContaining({
          configMap: expect.objectContaining({ name: 'kube-root-ca.crt' }) as unknown,
        }),
      ]),
    );
    expect(container?.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
    });
  });

  it('adds a PodDisruptionBudget only when there is more than one replica', async () => {
    expect((await render({ replicas: 2 })).find('PodDisruptionBudget')).toBeDefined();
    expect((await render({ replicas: 1 })).find('PodDisruptionBudget')).toBeUndefined();
  });

  it('exposes through a LoadBalancer by default, a NodePort, or a ClusterIP Service behind an Ingress', async () => {
    expect(((await render()).find('Service') as V1Service | undefined)?.spec?.type).toBe(
      'LoadBalancer',
    );
    expect((await render()).find('Ingress')).toBeUndefined();
    const nodePort = (await render({ expose: 'nodeport', nodePort: 30443 })).find('Service') as
      V1Service | undefined;
    expect(nodePort?.spec).toMatchObject({
      type: 'NodePort',
      ports: [{ nodePort: 30443, port: 443 }],
    });
    const behindIngress = await render({
      expose: 'ingress',
      externalAddress: ['k8s-api.example.org'],
      ingressClass: 'nginx-internal',
    });
    expect((behindIngress.find('Service') as V1Service | undefined)?.spec?.type).toBe('ClusterIP');
    const ingress = behindIngress.find('Ingress') as V1Ingress | undefined;
    expect(ingress?.spec?.ingressClassName).toBe('nginx-internal');
    expect(ingress?.spec?.tls).toEqual([
      { hosts: ['k8s-api.example.org'], secretName: 'kfx-expose-api-tls' },
    ]);
    expect(ingress?.spec?.rules?.[0]?.host).toBe('k8s-api.example.org');
    expect(ingress?.spec?.rules?.[0]?.http?.paths.map((p) => p.path)).toEqual([
      '/api',
      '/apis',
      '/version',
      '/openapi',
    ]);
    expect(ingress?.metadata?.annotations).toMatchObject({
      'nginx.ingress.kubernetes.io/backend-protocol': 'HTTPS',
      'nginx.ingress.kubernetes.io/proxy-buffering': 'off',
    });
  });

  it('renders one YAML stream in apply order', async () => {
    const { yaml } = await render();
    const kinds = parseYamlDocuments<Named>(yaml, 'renderManifests').map((d) => d.kind);
    expect(kinds).toEqual([
      'ServiceAccount',
      'Issuer',
      'Certificate',
      'Issuer',
      'Certificate',
      'Deployment',
      'PodDisruptionBudget',
      'Service',
    ]);
  });

  it('writes a Helm chart directory', async () => {
    const root = mkdtempSync(join(tmpdir(), 'kfx-exposer-chart-'));
    onTestFinished(() => {
      rmSync(root, { recursive: true, force: true });
    });
    const dir = join(root, 'chart');
    const { written } = await renderManifests({
      externalAddress: ['203.0.113.10'],
      image: 'kfx/cli:1.2.3',
      format: 'helm',
      output: dir,
    });
    expect(written).toContain(join(dir, 'Chart.yaml'));
    expect(readFileSync(join(dir, 'values.yaml'), 'utf8')).toContain('- 203.0.113.10');
    expect(readFileSync(join(dir, 'templates', 'deployment.yaml'), 'utf8')).toContain(
      'automountServiceAccountToken: {{ if or .Values.remoteWorkloads.nodes .Values.remoteWorkloads.interlinkConfig.name }}true{{ else }}false{{ end }}',
    );
  });

  it('with remote nodes, mounts the token for the door and grants it rights in their namespaces only', async () => {
    const { objects, find } = await render({
      remoteNodes: ['interlink-slurm'],
      remoteNamespaces: ['hpc-a', 'hpc-b'],
    });
    const pod = (find('Deployment') as V1Deployment | undefined)?.spec?.template.spec;
    expect(pod?.automountServiceAccountToken).toBe(true);
    expect(pod?.containers[0]?.args).toContain('--remote-node=interlink-slurm');
    const rbac = (objects as (Named & { metadata: { namespace?: string } })[]).filter((o) =>
      ['Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding'].includes(o.kind),
    );
    expect(rbac.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}`).sort()).toEqual([
      'Role/hpc-a',
      'Role/hpc-b',
      'RoleBinding/hpc-a',
      'RoleBinding/hpc-b',
    ]);
    await expect(render({ remoteNodes: ['interlink-slurm'] })).rejects.toThrow(
      /remoteNamespaces: the namespaces of the remote workloads/,
    );
  });

  it('with a certificate of your own, renders nothing for cert-manager', async () => {
    const { objects, find } = await render({ tlsSecret: 'my-tls' });
    expect(objects.some((o) => o.apiVersion.startsWith('cert-manager.io/'))).toBe(false);
    const pod = (find('Deployment') as V1Deployment | undefined)?.spec?.template.spec;
    expect(pod?.volumes?.find((v) => v.name === 'tls')?.secret?.secretName).toBe('my-tls');
  });

  it('names the option and what it expected when an option is wrong', async () => {
    expect(await problems({ externalAddress: [] })).toContain(
      'externalAddress: expected at least one address clients use',
    );
    expect(await problems({ externalAddress: ['not an address'] })).toContain(
      'externalAddress[0]: expected an IP address or a lower-case DNS name, got "not an address"',
    );
    expect(await problems({ renewBefore: '3000h' })).toContain(
      'renewBefore: must be shorter than certDuration',
    );
    expect(await problems({ caDuration: '24h' })).toContain(
      'caDuration: must be longer than certDuration',
    );
    expect(await problems({ image: undefined as unknown as string })).toContain(
      'image is required',
    );
    expect(await problems({ nodePort: 30443 })).toContain('nodePort: only with expose nodeport');
    expect(await problems({ expose: 'route' as 'ingress' })).toContain(
      'expose: expected loadbalancer, nodeport or ingress, got "route"',
    );
    expect(await problems({ issuer: 'corp-ca' })).toContain(
      'issuer: expected Issuer/NAME or ClusterIssuer/NAME',
    );
    expect(await problems({ format: 'helm' })).toContain('output: a Helm chart is a directory');
    expect(await problems({ certDuration: '100y' })).toContain('certDuration: expected a duration');
  });
});
