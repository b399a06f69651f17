// `kfx preview --discover`: the built binary reads a real API server's network as the webhook
// does, and its notes say which NO_PROXY entries were discovered and from what, and which range
// is a guess (before Kubernetes 1.33 there are no ServiceCIDR objects), until the configuration
// gives it.
// It owns its control plane: --discover reads every Node and the service range of the cluster.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { applyManifests, atLeastMinor, startControlPlane, type ControlPlane } from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const main = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'kfx-cli-preview-'));
const pod = join(dir, 'pod.yaml');
writeFileSync(
  pod,
  'apiVersion: v1\nkind: Pod\nmetadata: {name: step, namespace: team-a}\nspec: {containers: [{name: main, image: python}]}\n',
);
let env: ControlPlane | undefined;

beforeAll(async () => {
  env = await startControlPlane();
  const node = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'worker-1' },
    spec: { podCIDR: '10.250.1.0/24', podCIDRs: ['10.250.1.0/24'] },
  };
  await applyManifests(env.kubeConfig, node);
});

afterAll(async () => {
  await env?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const preview = (...extra: string[]) =>
  run(process.execPath, [
    main,
    'preview',
    pod,
    '--http-proxy',
    'http://proxy.corp:3128',
    '--discover',
    '--kubeconfig',
    env?.kubeconfigPath ?? '',
    ...extra,
  ]);

describe('kfx preview --discover', () => {
  it('shows the NO_PROXY entries read from the cluster, each with its source', async () => {
    const { stdout, stderr } = await preview();
    const version = env?.kubernetesVersion ?? '';
    if (atLeastMinor(version, '1.33')) {
      // The test control plane's service range (10.0.0.0/24), not kubeadm's 10.96.0.0/12.
      expect(stdout).toContain(
        '#   NO_PROXY entries, discovered from the ServiceCIDR objects: 10.0.0.0/24',
      );
      expect(stdout).not.toContain('10.96.0.0/12');
      expect(stdout).not.toContain('GUESS');
      expect(stderr).toBe('');
    } else {
      // No ServiceCIDR objects: kubeadm's range, said to be a guess on stdout and stderr alike.
      const note = `service range is a GUESS, kubeadm's 10.96.0.0/12: Kubernetes ${version} does not serve ServiceCIDR (networking.k8s.io/v1): it came with 1.33; set serviceCidrs to the cluster's service range`;
      expect(stdout).toContain(
        "#   NO_PROXY entries, guess (kubeadm's service range): 10.96.0.0/12",
      );
      expect(stdout).toContain(`#   NO_PROXY: ${note}`);
      expect(stderr).toBe(`kfx preview --discover: NO_PROXY's ${note}\n`);
    }
    expect(stdout).toContain(
      '#   NO_PROXY entries, discovered from Service default/kubernetes: 10.0.0.1',
    );
    expect(stdout).toContain(
      '#   NO_PROXY entries, discovered from spec.podCIDRs of 1 Node: 10.250.1.0/24',
    );
    expect(stdout).toContain(
      '#   NO_PROXY entries, discovered from Nodes (addresses and host names): worker-1',
    );
    expect(stdout).toContain(
      '#   NO_PROXY entries, cloud metadata endpoints (metadataEndpoints): 169.254.169.254,169.254.170.23,fd00:ec2::254,metadata.google.internal',
    );
  });

  it('takes the ranges from the configuration, and then guesses none', async () => {
    const config = join(dir, 'config.yaml');
    writeFileSync(
      config,
      // A whole kfx-webhook configuration, as the chart writes it: preview checks it as kfx-webhook does.
      'tls: {certFile: /tls/tls.crt, keyFile: /tls/tls.key}\nproxyInjector:\n  httpProxy: http://proxy.corp:3128\n  serviceCidrs: [10.0.0.0/24]\n',
    );
    const { stdout, stderr } = await preview('--config', config);
    expect(stdout).toContain('#   NO_PROXY entries, config (serviceCidrs): 10.0.0.0/24');
    expect(stdout).not.toContain('GUESS');
    expect(stderr).toBe('');
  });

  it('fails naming what it could not read when the cluster cannot be reached', async () => {
    const kubeconfig = join(dir, 'nowhere.yaml');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: c, cluster: {server: "https://127.0.0.1:9"}}]',
        'users: [{name: u, user: {token: x}}]',
        'contexts: [{name: c, context: {cluster: c, user: u}}]',
        'current-context: c',
      ].join('\n'),
    );
    const failed = run(process.execPath, [
      main,
      'preview',
      pod,
      '--http-proxy',
      'http://proxy.corp:3128',
      '--discover',
      '--kubeconfig',
      kubeconfig,
    ]);
    await expect(failed).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(
        /--discover: nothing could be read from the cluster: .*Nodes not read: [^;]*ECONNREFUSED/,
      ) as unknown,
    });
  });
});
