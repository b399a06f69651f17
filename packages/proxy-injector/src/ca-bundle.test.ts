import { describe, expect, it } from 'vitest';
import { caBundleStateOf, caBundleWarning, countCertificates } from './ca-bundle.js';
import { parseProxyInjectorConfig } from './config.js';
import { injectPodSpec } from './inject.js';
import { previewProxyInjection } from './preview.js';
import { planInjection, resolveProxySettings } from './settings.js';
import type { Pod } from './testing/pods.js';

const config = parseProxyInjectorConfig({
  httpProxy: 'http://proxy:3128',
  httpsProxy: 'http://proxy:3128',
  caBundle: { configMap: 'proxy-ca', key: 'ca-bundle.crt' },
});
const FILE = '/etc/kfx/proxy-ca/ca-bundle.crt';
const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const settings = resolveProxySettings(config, {});
const full = planInjection(settings, { state: 'full', certificates: 140 });

const pod = (): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'train', namespace: 'team-a' },
  spec: {
    volumes: [{ name: 'kfx-proxy-ca', emptyDir: {} }],
    initContainers: [{ name: 'download', image: 'curl' }],
    containers: [
      {
        name: 'main',
        image: 'python',
        env: [{ name: 'REQUESTS_CA_BUNDLE', value: '/own/ca.pem' }],
        volumeMounts: [{ name: 'kfx-proxy-ca', mountPath: '/scratch' }],
      },
      {
        name: 'other',
        image: 'python',
        volumeMounts: [{ name: 'certs', mountPath: '/etc/kfx/proxy-ca/' }],
      },
    ],
  },
});

const envOf = (c: { env?: { name: string; value?: string }[] } | undefined) =>
  Object.fromEntries((c?.env ?? []).map((e) => [e.name, e.value]));

describe('the proxy CA bundle', () => {
  it('is mounted read-only in every container, beside volumes and mounts of the same name, and named by the variables', () => {
    const p = pod();
    const reports = injectPodSpec(p.spec ?? { containers: [] }, full, { operation: 'create' });
    // The Pod's own `kfx-proxy-ca` volume stays; the bundle gets the next free name.
    expect(p.spec?.volumes).toEqual([
      { name: 'kfx-proxy-ca', emptyDir: {} },
      {
        name: 'kfx-proxy-ca-2',
        configMap: {
          name: 'proxy-ca',
          items: [{ key: 'ca-bundle.crt', path: 'ca-bundle.crt' }],
          optional: true,
        },
      },
    ]);
    const [main, other] = p.spec?.containers ?? [];
    expect(main?.volumeMounts).toEqual([
      { name: 'kfx-proxy-ca', mountPath: '/scratch' },
      { name: 'kfx-proxy-ca-2', mountPath: '/etc/kfx/proxy-ca', readOnly: true },
    ]);
    expect(envOf(main)).toMatchObject({
      SSL_CERT_FILE: FILE,
      REQUESTS_CA_BUNDLE: '/own/ca.pem', // the workload's value wins
      CURL_CA_BUNDLE: FILE,
      NODE_EXTRA_CA_CERTS: FILE,
      PIP_CERT: FILE,
      GIT_SSL_CAINFO: FILE,
    });
    expect(envOf(p.spec?.initContainers?.[0])).toMatchObject({ SSL_CERT_FILE: FILE });
    // Something else is mounted at the bundle's path in `other`: nothing there points at it.
    expect(other?.volumeMounts).toHaveLength(1);
    expect(envOf(other).SSL_CERT_FILE).toBeUndefined();
    expect(envOf(other).HTTPS_PROXY).toBe('http://proxy:3128');
    expect(reports.map((r) => r.ca)).toEqual(['mounted', 'path-taken', 'mounted']);
  });

  it('is idempotent: a second pass over an injected Pod changes nothing', () => {
    const first = previewProxyInjection(pod(), config);
    expect(first.patch.length).toBeGreaterThan(0);
    const again = previewProxyInjection(first.object, config);
    expect(again.patch).toEqual([]);
  });

  it('holding one certificate (the proxy CA alone) sets only the additive NODE_EXTRA_CA_CERTS, with a warning', () => {
    const configMap = {
      metadata: { namespace: 'team-a', name: 'proxy-ca' },
      data: { 'ca-bundle.crt': PEM },
    };
    const state = caBundleStateOf(configMap, { key: 'ca-bundle.crt' });
    expect(state).toEqual({ state: 'proxy-only', source: 'ConfigMap team-a/proxy-ca' });
    const p = pod();
    injectPodSpec(p.spec ?? { containers: [] }, planInjection(settings, state), {
      operation: 'create',
    });
    const env = envOf(p.spec?.initContainers?.[0]);
    expect(env.NODE_EXTRA_CA_CERTS).toBe(FILE);
    expect(env.SSL_CERT_FILE).toBeUndefined();
    expect(caBundleWarning(state)).toBe(
      "ConfigMap team-a/proxy-ca holds one certificate (the proxy's CA alone?): only NODE_EXTRA_CA_CERTS is set; publish the public roots with it to get SSL_CERT_FILE and the others",
    );
  });

  it('is not mounted where the ConfigMap lacks the key or holds no certificate', () => {
    const lacking = caBundleStateOf(
      { metadata: { namespace: 'a', name: 'proxy-ca' }, data: {} },
      { key: 'ca-bundle.crt' },
    );
    expect(lacking).toEqual({
      state: 'missing',
      reason: 'ConfigMap a/proxy-ca has no key ca-bundle.crt',
    });
    expect(planInjection(settings, lacking).ca).toBeUndefined();
    expect(countCertificates(`${PEM}${PEM}junk`)).toBe(2);
  });

  it('is mounted in a debug container only when the Pod already has its volume', () => {
    const injected = previewProxyInjection(pod(), config).object as Pod;
    const spec = injected.spec ?? { containers: [] };
    spec.ephemeralContainers = [{ name: 'debugger', image: 'busybox' }];
    injectPodSpec(spec, full, { operation: 'ephemeral', existing: new Set() });
    expect(spec.ephemeralContainers[0]?.volumeMounts).toEqual([
      { name: 'kfx-proxy-ca-2', mountPath: '/etc/kfx/proxy-ca', readOnly: true },
    ]);
    const bare = pod().spec ?? { containers: [] };
    bare.ephemeralContainers = [{ name: 'debugger', image: 'busybox' }];
    const [report] = injectPodSpec(bare, full, { operation: 'ephemeral', existing: new Set() });
    expect(report?.ca).toBe('no-volume');
    expect(bare.volumes).toHaveLength(1);
  });

  it('rejects a configuration that is not a ConfigMap key and an absolute path, naming the key', () => {
    expect(() =>
      parseProxyInjectorConfig({
        httpProxy: 'http://p:1',
        caBundle: { configMap: 'Proxy CA', key: 'a/b', mountPath: 'etc/ca' },
      }),
    ).toThrow(
      /caBundle\.configMap: expected a ConfigMap name[\s\S]*caBundle\.key: expected a ConfigMap key[\s\S]*caBundle\.mountPath: expected an absolute path/,
    );
  });
});
