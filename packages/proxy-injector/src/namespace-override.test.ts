import { describe, expect, it } from 'vitest';
import { applyOverride, parseNamespaceOverride } from './namespace-override.js';
import type { ProxySettings } from './settings.js';

const cluster: ProxySettings = {
  httpProxy: 'http://proxy:3128',
  httpsProxy: 'http://proxy:3128',
  noProxy: ['.svc', '10.96.0.1'],
  noProxySources: [{ source: 'cluster names', entries: ['.svc', '10.96.0.1'] }],
  noProxyNotes: [],
  noProxyGuesses: [],
  caBundle: undefined,
  nodeUseEnvProxy: false,
  javaToolOptions: false,
  excludeContainers: [],
};

const configMap = (data: Record<string, string>) => ({
  metadata: { namespace: 'team-a', name: 'kfx-proxy' },
  data,
});

describe('per-namespace overrides', () => {
  it('replaces proxies and adds NO_PROXY entries to the cluster ones', () => {
    const override = parseNamespaceOverride(
      configMap({ HTTPS_PROXY: 'http://team-proxy:8080', no_proxy: 'lab.internal, .svc' }),
    );
    expect(applyOverride(cluster, override)).toMatchObject({
      httpProxy: 'http://proxy:3128',
      httpsProxy: 'http://team-proxy:8080',
      noProxy: ['.svc', '10.96.0.1', 'lab.internal'],
    });
  });

  it('turns a proxy off for the namespace with an empty value', () => {
    const override = parseNamespaceOverride(configMap({ HTTP_PROXY: '', HTTPS_PROXY: ' ' }));
    const settings = applyOverride(cluster, override);
    expect(settings.httpProxy).toBeUndefined();
    expect(settings.httpsProxy).toBeUndefined();
  });

  it('ignores a broken value with a problem naming the ConfigMap and the key', () => {
    const override = parseNamespaceOverride(configMap({ http_proxy: 'proxy:3128' }));
    expect(override.httpProxy).toBeUndefined();
    expect(override.problems).toEqual([
      "ConfigMap team-a/kfx-proxy: http_proxy is not an http:// or https:// URL; the cluster's HTTP_PROXY is used",
    ]);
  });
});
