import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { defaultNamespace, loadKubeConfig } from './kubeconfig.js';

let dir: string;

function kubeconfig(file: string, clusters: string[], current: string, namespace?: string): string {
  const path = join(dir, file);
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: clusters.map((name) => ({
      name,
      cluster: { server: `https://${name}.example:6443` },
    })),
    users: clusters.map((name) => ({ name, user: { token: `token-${name}` } })),
    contexts: clusters.map((name) => ({ name, context: { cluster: name, user: name, namespace } })),
    'current-context': current,
  };
  writeFileSync(path, JSON.stringify(doc));
  return path;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kube-runtime-kubeconfig-'));
  vi.stubEnv('KUBECONFIG', '');
  vi.stubEnv('HOME', join(dir, 'home'));
  vi.stubEnv('KUBERNETES_SERVICE_HOST', '');
  vi.stubEnv('KUBERNETES_SERVICE_PORT', '');
});
afterEach(() => {
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

const server = (kc: ReturnType<typeof loadKubeConfig>) => kc.getCurrentCluster()?.server;

describe('loadKubeConfig', () => {
  it('prefers --kubeconfig over KUBECONFIG over ~/.kube/config', () => {
    mkdirSync(join(dir, 'home', '.kube'), { recursive: true });
    writeFileSync(
      join(dir, 'home', '.kube', 'config'),
      JSON.stringify({
        clusters: [{ name: 'home', cluster: { server: 'https://home.example' } }],
        users: [{ name: 'home', user: {} }],
        contexts: [{ name: 'home', context: { cluster: 'home', user: 'home' } }],
        'current-context': 'home',
      }),
    );
    expect(server(loadKubeConfig())).toBe('https://home.example');
    vi.stubEnv('KUBECONFIG', kubeconfig('env.yaml', ['env'], 'env'));
    expect(server(loadKubeConfig())).toBe('https://env.example:6443');
    const flag = kubeconfig('flag.yaml', ['flag'], 'flag');
    expect(server(loadKubeConfig({ kubeconfig: flag }))).toBe('https://flag.example:6443');
  });

  it('merges a KUBECONFIG list first-wins, like kubectl', () => {
    const first = kubeconfig('a.yaml', ['shared', 'a'], 'a');
    const second = kubeconfig('b.yaml', ['shared', 'b'], 'b');
    writeFileSync(
      second,
      JSON.stringify({
        clusters: [
          { name: 'shared', cluster: { server: 'https://second.example' } },
          { name: 'b', cluster: { server: 'https://b.example' } },
        ],
        users: [
          { name: 'shared', user: {} },
          { name: 'b', user: {} },
        ],
        contexts: [
          { name: 'shared', context: { cluster: 'shared', user: 'shared' } },
          { name: 'b', context: { cluster: 'b', user: 'b' } },
        ],
        'current-context': 'b',
      }),
    );
    vi.stubEnv('KUBECONFIG', [first, join(dir, 'missing.yaml'), second].join(delimiter));
    const kc = loadKubeConfig();
    expect(kc.getCurrentContext()).toBe('a');
    expect(server(loadKubeConfig({ context: 'shared' }))).toBe('https://shared.example:6443');
    expect(server(loadKubeConfig({ context: 'b' }))).toBe('https://b.example');
  });

  it('selects a context and names the missing one', () => {
    const file = kubeconfig('two.yaml', ['one', 'two'], 'one', 'team-a');
    const kc = loadKubeConfig({ kubeconfig: file, context: 'two' });
    expect(server(kc)).toBe('https://two.example:6443');
    expect(defaultNamespace(kc)).toBe('team-a');
    expect(() => loadKubeConfig({ kubeconfig: file, context: 'three' })).toThrow(
      `context "three" not found in kubeconfig ${file} (contexts: one, two)`,
    );
  });

  it('names the file that is missing or broken', () => {
    const missing = join(dir, 'nope.yaml');
    expect(() => loadKubeConfig({ kubeconfig: missing })).toThrow(
      `kubeconfig file ${missing} (--kubeconfig) does not exist`,
    );
    vi.stubEnv('KUBECONFIG', missing);
    expect(() => loadKubeConfig()).toThrow(`none of the KUBECONFIG files exist: ${missing}`);
    const broken = join(dir, 'broken.yaml');
    writeFileSync(broken, 'clusters: [');
    expect(() => loadKubeConfig({ kubeconfig: broken })).toThrow(
      `kubeconfig ${broken} cannot be read`,
    );
  });

  it('says where it looked when nothing is configured', () => {
    expect(() => loadKubeConfig()).toThrow(
      /no Kubernetes configuration: .*\.kube\/config does not exist/,
    );
  });

  it('refuses a current-context whose cluster is missing', () => {
    const file = join(dir, 'dangling.yaml');
    writeFileSync(
      file,
      JSON.stringify({
        clusters: [],
        users: [{ name: 'u', user: {} }],
        contexts: [{ name: 'c', context: { cluster: 'gone', user: 'u' } }],
        'current-context': 'c',
      }),
    );
    expect(() => loadKubeConfig({ kubeconfig: file })).toThrow(
      `context "c" names cluster "gone", not found`,
    );
  });

  it('uses the service account in a Pod, and says what is missing outside one', () => {
    const root = join(dir, 'pod');
    const sa = join(root, 'var/run/secrets/kubernetes.io/serviceaccount');
    mkdirSync(sa, { recursive: true });
    writeFileSync(join(sa, 'token'), 'pod-token');
    writeFileSync(join(sa, 'ca.crt'), 'not used here');
    writeFileSync(join(sa, 'namespace'), 'kfx-system');
    expect(() => loadKubeConfig({ inCluster: true, inClusterPathPrefix: root })).toThrow(
      'in-cluster configuration: KUBERNETES_SERVICE_HOST is not set',
    );
    vi.stubEnv('KUBERNETES_SERVICE_HOST', '10.96.0.1');
    vi.stubEnv('KUBERNETES_SERVICE_PORT', '443');
    const kc = loadKubeConfig({ inClusterPathPrefix: root });
    expect(server(kc)).toBe('https://10.96.0.1:443');
    expect(defaultNamespace(kc)).toBe('kfx-system');
  });
});
