// The check of docs/migration/from-interlink-nginx.md: the guide's `kfx expose-api manifests`
// command renders a chart with what the guide says, and helm installs it on the real API server
// (cert-manager's API from minimal CRDs); `kfx expose-api serve` in front of the real API server, as the Deployment runs
// it, lets the guide's kubeconfig pass `kfx expose-api check` and `kubectl auth can-i --list`.
// It owns its control plane: it installs cert-manager's CRDs, cluster-wide.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubernetesObject, V1Ingress } from '@kubernetes/client-node';
import { createCertificateAuthority } from '@kfx/dev-certs';
import {
  applyManifests,
  freePort,
  installCrds,
  startControlPlane,
  waitUntilHealthy,
  type ControlPlane,
} from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type Completed, type RunningApp } from '../apps.js';
import { CERT_MANAGER_CRDS } from '../cert-manager.js';
import { exists } from '../cluster.js';
import { readGuide } from '../guide.js';
import { runGuideCommands } from '../guide-commands.js';
import { helm, renderChart, type Rendered } from '../helm.js';
import { kubectl as kubectlOk } from '@kfx/testenv';
import { installedObjects } from '../release.js';
import { commandLines } from '../shell-words.js';

type Certificate = KubernetesObject & {
  spec: { isCA?: boolean; dnsNames?: string[]; duration?: string; renewBefore?: string };
};

const guide = readGuide('from-interlink-nginx.md');
const EXTERNAL = 'https://k8s-api.example.org:60443';
const dir = mkdtempSync(join(tmpdir(), 'kfx-e2e-interlink-'));
let env: ControlPlane | undefined;
let proxy: RunningApp | undefined;
let rendered: Rendered[] = [];
let checked: Completed[] = [];
let installed: Completed | undefined;

const CHART = () => join(dir, 'kfx-expose-api');
const options = () => ({ cwd: dir, kubeconfigPath: env?.kubeconfigPath ?? '' });

beforeAll(async () => {
  // kube-controller-manager fills the aggregated ClusterRole `edit` the guide binds.
  env = await startControlPlane({ components: ['controller-manager'] });
  await runGuideCommands(commandLines(guide.text('manifests')), options());
  rendered = await renderChart(CHART(), { release: 'kfx-expose-api', namespace: 'kfx-system' });
  await installCrds(env.kubeconfigPath, [CERT_MANAGER_CRDS]);
  // The namespaces interLink's installation has: its own, and the one its Pods run in.
  for (const namespace of ['interlink', 'hpc-jobs'])
    await kubectlOk(env.kubeconfigPath, ['create', 'namespace', namespace]);
  installed = await helm([
    'install',
    'kfx-expose-api',
    CHART(),
    '--namespace',
    'kfx-system',
    '--create-namespace',
    '--kubeconfig',
    env.kubeconfigPath,
  ]);

  // What cert-manager would write into the serving Secret, here for 127.0.0.1; and the proxy as
  // the Deployment runs it, with that certificate, in front of the test API server.
  const ca = createCertificateAuthority();
  const serving = ca.issue({ commonName: 'kfx-expose-api', ipAddresses: ['127.0.0.1'] });
  await applyManifests(env.kubeconfigPath, {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/tls',
    metadata: { name: 'kfx-expose-api-tls', namespace: 'kfx-system' },
    data: {
      'tls.crt': Buffer.from(serving.cert).toString('base64'),
      'tls.key': Buffer.from(serving.key).toString('base64'),
      'ca.crt': Buffer.from(ca.cert).toString('base64'),
    },
  } as KubernetesObject);
  writeFileSync(join(dir, 'tls.crt'), serving.cert);
  writeFileSync(join(dir, 'tls.key'), serving.key, { mode: 0o600 });
  const [port, opsPort] = [await freePort(), await freePort()];
  proxy = startApp(
    '@kfx/cli',
    [
      'expose-api',
      'serve',
      '--listen',
      `127.0.0.1:${port}`,
      '--tls-cert',
      join(dir, 'tls.crt'),
      '--tls-key',
      join(dir, 'tls.key'),
      '--kubeconfig',
      env.kubeconfigPath,
      '--metrics-listen',
      `127.0.0.1:${opsPort}`,
    ],
    join(dir, 'expose-api.log'),
  );
  await waitUntilHealthy(proxy, `http://127.0.0.1:${opsPort}/readyz`);

  await kubectlOk(env.kubeconfigPath, ['create', 'namespace', 'slurm']);
  const local = (words: string[]) =>
    words.map((word) => word.replace(EXTERNAL, `https://127.0.0.1:${port}`));
  await runGuideCommands(commandLines(guide.text('kubeconfig')).map(local), options());
  checked = await runGuideCommands(commandLines(guide.text('check')).map(local), options());
});

afterAll(async () => {
  await proxy?.stop();
  await env?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const find = (kind: string, name: string): Rendered | undefined =>
  rendered.find((o) => o.kind === kind && o.metadata?.name === name);

describe(guide.file, () => {
  it('renders the objects the guide lists', () => {
    expect(rendered.map((o) => o.kind).sort()).toEqual([
      'Certificate',
      'Certificate',
      'Deployment',
      'Ingress',
      'Issuer',
      'Issuer',
      'PodDisruptionBudget',
      'Role',
      'Role',
      'RoleBinding',
      'RoleBinding',
      'Service',
      'ServiceAccount',
    ]);
    // The door's rights in the remote Pods' namespace, and interLink's copy of the CA to read.
    expect(
      rendered
        .filter((o) => o.kind === 'Role')
        .map((o) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`)
        .sort(),
    ).toEqual([
      'hpc-jobs/kfx-expose-api-remote-workloads',
      'interlink/kfx-expose-api-interlink-ca',
    ]);
    const ingress = find('Ingress', 'kfx-expose-api') as V1Ingress | undefined;
    expect(ingress?.spec?.ingressClassName).toBe('nginx-internal');
    expect(ingress?.spec?.rules?.[0]?.http?.paths.map((p) => p.path)).toEqual([
      '/api',
      '/apis',
      '/version',
      '/openapi',
    ]);
    expect(ingress?.metadata?.annotations?.['nginx.ingress.kubernetes.io/proxy-buffering']).toBe(
      'off',
    );
    const serving = find('Certificate', 'kfx-expose-api') as Certificate | undefined;
    expect(serving?.spec.dnsNames).toContain('k8s-api.example.org');
    expect(serving?.spec).toMatchObject({ duration: '2160h', renewBefore: '720h' });
    expect(
      (find('Certificate', 'kfx-expose-api-ca') as Certificate | undefined)?.spec,
    ).toMatchObject({
      isCA: true,
      duration: '17520h',
    });
  });

  it('helm installs the chart: the API server accepts every object', async () => {
    const kubeconfig = env?.kubeconfigPath ?? '';
    expect(installed?.stderr).toBe('');
    expect(installed?.code).toBe(0);
    const objects = await installedObjects(kubeconfig, 'kfx-expose-api', 'kfx-system');
    expect(objects).toHaveLength(rendered.length);
    expect(await exists(kubeconfig, ['ingress', 'kfx-expose-api'], 'kfx-system')).toBe(true);
  });

  it('kfx expose-api check passes through the proxy with the minted kubeconfig', () => {
    const [check] = checked;
    expect(check?.stdout).toContain(
      'identity: the token authenticates as system:serviceaccount:slurm:slurm-plugin',
    );
    expect(check?.stdout.trim().split('\n').at(-1)).toBe('All checks passed.');
  });

  it('kubectl auth can-i --list through the proxy prints the rules of the binding', () => {
    const [, canI] = checked;
    expect(canI?.stdout).toMatch(/pods\s+\[\]\s+\[\]\s+\[.*create.*\]/);
  });
});
