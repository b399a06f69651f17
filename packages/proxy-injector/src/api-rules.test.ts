// The rights a configuration needs follow its caches: each API-backed feature adds its reads,
// and none of them reads Secrets or writes anything.
import { describe, expect, it } from 'vitest';
import { proxyInjectorApiRules } from './api-rules.js';
import { parseProxyInjectorConfig } from './config.js';

const rulesOf = (section: Record<string, unknown>) =>
  proxyInjectorApiRules(
    parseProxyInjectorConfig({ httpProxy: 'http://proxy:3128', ...section }),
  ).map(
    (rule) =>
      `${rule.resources?.join()}${rule.resourceNames ? `/${rule.resourceNames.join()}` : ''}: ${rule.verbs.join()}`,
  );

describe('proxyInjectorApiRules', () => {
  it('by default reads the envFrom ConfigMaps and the cluster network', () => {
    expect(rulesOf({})).toEqual([
      'configmaps: get',
      'nodes: list,watch',
      'servicecidrs: list,watch',
      'services/kubernetes: get',
    ]);
  });

  it('watches ConfigMaps for namespaceConfigMap or caBundle, and reads nothing with everything off', () => {
    const off = { discover: false, readEnvFrom: false };
    expect(rulesOf(off)).toEqual([]);
    expect(rulesOf({ ...off, namespaceConfigMap: 'kfx-proxy' })).toEqual([
      'configmaps: list,watch',
    ]);
    expect(rulesOf({ ...off, caBundle: { configMap: 'ca', key: 'ca.crt' } })).toEqual([
      'configmaps: list,watch',
    ]);
    expect(rulesOf({ discover: false, namespaceConfigMap: 'kfx-proxy' })).toEqual([
      'configmaps: list,watch,get',
    ]);
  });
});
