import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_EXCLUDED_CONTAINERS,
  DEFAULT_KUBEFLOW_NAMESPACES,
  DEFAULT_METADATA_ENDPOINTS,
  parseProxyInjectorConfig,
  proxyInjectorConfigSchema,
} from './config.js';
import { ConfigError, describeIssues } from '@kfx/kube-runtime/serving';
import { resolveProxySettings } from './settings.js';

function problems(input: unknown): readonly string[] {
  try {
    parseProxyInjectorConfig(input);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('the configuration was accepted');
}

describe('proxyInjector configuration', () => {
  it('fills documented defaults', () => {
    const config = parseProxyInjectorConfig({ httpProxy: 'http://proxy:3128' });
    expect(config).toMatchObject({
      noProxy: [],
      fromEnvironment: false,
      clusterDomain: 'cluster.local',
      kubeflowNamespaces: DEFAULT_KUBEFLOW_NAMESPACES,
      metadataEndpoints: DEFAULT_METADATA_ENDPOINTS,
      discover: true,
      maxNodes: 100,
      readEnvFrom: true,
      excludeContainers: DEFAULT_EXCLUDED_CONTAINERS,
      nodeUseEnvProxy: false,
      javaToolOptions: false,
    });
    // Unset ranges are discovered, or fall back to kubeadm's and flannel's (see settings).
    expect(config.serviceCidrs).toBeUndefined();
    expect(config.podCidrs).toBeUndefined();
    expect(config.caBundle).toBeUndefined();
  });

  it('names the key path of every bad value', () => {
    expect(
      problems({
        httpProxy: 'proxy.corp:3128',
        noProxy: ['.ok.example', 'a.example, b.example', 7],
        serviceCidrs: ['10.96.0.0/33'],
        apiServerServiceIp: 'kubernetes',
        excludeContainers: ['Istio_Proxy'],
        metadataEndpoints: ['169.254.0.0/16', 'http://169.254.169.254'],
        javaToolOptions: 'yes',
      }),
    ).toEqual([
      'proxyInjector.httpProxy: expected an http:// or https:// URL with a host, e.g. http://proxy.corp.example:3128',
      'proxyInjector.noProxy[1]: expected one host, domain suffix (.corp.example.com), IP address or CIDR per list item, without spaces or commas',
      'proxyInjector.noProxy[2]: expected a string',
      'proxyInjector.serviceCidrs[0]: expected a CIDR such as 10.96.0.0/12 or fd00:10:96::/112',
      'proxyInjector.apiServerServiceIp: expected an IP address such as 10.96.0.1',
      'proxyInjector.metadataEndpoints[0]: expected an IP address or a host name, such as 169.254.169.254 or metadata.google.internal',
      'proxyInjector.metadataEndpoints[1]: expected an IP address or a host name, such as 169.254.169.254 or metadata.google.internal',
      'proxyInjector.excludeContainers[0]: expected a container name (a DNS label: lower-case letters, digits and -)',
      'proxyInjector.javaToolOptions: expected true or false',
    ]);
  });

  it('rejects unknown keys, so that a typo does not silently turn a setting off', () => {
    expect(problems({ httpProxy: 'http://p:1', httpsproxy: 'http://p:1' })).toEqual([
      'proxyInjector.httpsproxy: unknown key',
    ]);
  });

  it('refuses a configuration with nothing to inject', () => {
    expect(problems({ noProxy: ['.corp'] })[0]).toMatch(/^proxyInjector: nothing to inject/);
    expect(problems(undefined)).toEqual(['proxyInjector: Required']);
    expect(problems(['http://p:1'])).toEqual([
      'proxyInjector: expected a mapping (httpProxy, httpsProxy, noProxy, ...)',
    ]);
  });

  it('gives full key paths when embedded in the kfx-webhook configuration', () => {
    const root = z.object({ proxyInjector: proxyInjectorConfigSchema });
    const result = root.safeParse({ proxyInjector: { httpProxy: 'http://p:1', podCidrs: 'x' } });
    expect(result.success).toBe(false);
    expect(describeIssues(result.error?.issues ?? [], '')).toEqual([
      'proxyInjector.podCidrs: expected a list of CIDRs',
    ]);
  });

  it('derives the API server IP from the first service CIDR unless it is given', () => {
    const noProxy = (input: object) =>
      resolveProxySettings(parseProxyInjectorConfig({ httpProxy: 'http://p:1', ...input }), {})
        .noProxy;
    expect(noProxy({ serviceCidrs: ['10.100.0.0/16'] }).at(-1)).toBe('10.100.0.1');
    expect(noProxy({ serviceCidrs: ['fd00:10:96::/112'], podCidrs: [] }).at(-1)).toBe(
      'fd00:10:96::1',
    );
    expect(noProxy({ apiServerServiceIp: '172.20.0.1' }).at(-1)).toBe('172.20.0.1');
    expect(noProxy({ clusterDomain: 'k8s.internal' })).toContain('.svc.k8s.internal');
  });
});

describe('fromEnvironment', () => {
  const config = parseProxyInjectorConfig({ fromEnvironment: true, noProxy: ['.corp'] });

  it("takes the webhook's own variables, either case, adding NO_PROXY entries to the configured ones", () => {
    const settings = resolveProxySettings(config, {
      https_proxy: 'http://host-proxy:8080',
      HTTP_PROXY: 'http://host-proxy:8080',
      no_proxy: 'registry.internal,.corp',
    });
    expect(settings.httpProxy).toBe('http://host-proxy:8080');
    expect(settings.httpsProxy).toBe('http://host-proxy:8080');
    expect(settings.noProxy.slice(0, 3)).toEqual(['.corp', 'registry.internal', 'localhost']);
  });

  it('lets configured values win over the environment', () => {
    const own = parseProxyInjectorConfig({ fromEnvironment: true, httpProxy: 'http://mine:1' });
    expect(resolveProxySettings(own, { HTTP_PROXY: 'http://env:2' }).httpProxy).toBe(
      'http://mine:1',
    );
  });

  it('stops start-up when the environment has no proxy either, or a broken one', () => {
    expect(() => resolveProxySettings(config, {})).toThrow(
      /proxyInjector: nothing to inject: .*neither HTTP_PROXY nor HTTPS_PROXY/,
    );
    expect(() => resolveProxySettings(config, { HTTP_PROXY: 'http://u:secret@[bad' })).toThrow(
      "proxyInjector.fromEnvironment: the webhook's HTTP_PROXY (http://u:***@[bad) is not a URL",
    );
  });
});
