import { describe, expect, it } from 'vitest';
import { parseProxyInjectorConfig } from '../config.js';
import { envFromLookup } from '../env-from.js';
import { injectPodSpec, type PodSpec } from '../inject.js';
import { planInjection, resolveProxySettings } from '../settings.js';
import { injectionState, namespaceServed, proxyFacts } from './injection-state.js';

type Container = Record<string, unknown>;

const pod = (annotations: Record<string, string>, ...containers: Container[]) => ({
  metadata: { annotations },
  spec: { containers },
});
const bare: Container = { name: 'c', image: 'busybox' };
const withEnv = (...names: string[]): Container => ({
  ...bare,
  env: names.map((name) => ({ name, value: 'http://proxy:3128' })),
});
const MARK = { 'proxy-injector.kfx.dev/injected': 'true' };

describe('what became of a Pod at admission', () => {
  it('goes by the proxy variables in the spec, not by the mark its creator can write', () => {
    expect(injectionState(pod({}, withEnv('HTTP_PROXY', 'http_proxy')))).toBe('injected');
    // The workload's own setting, in either case, is one the injector leaves alone.
    expect(injectionState(pod({}, withEnv('https_proxy')))).toBe('injected');
    expect(injectionState(pod(MARK, bare))).toBe('missed');
    expect(injectionState(pod(MARK, withEnv('NO_PROXY', 'SSL_CERT_FILE')))).toBe('missed');
  });

  it('asks every container and init container but those the webhook excludes', () => {
    const sidecar = { name: 'istio-proxy', image: 'proxyv2' };
    expect(injectionState(pod({}, withEnv('HTTP_PROXY'), sidecar))).toBe('injected');
    expect(injectionState(pod({}, withEnv('HTTP_PROXY'), sidecar), { excludeContainers: [] })).toBe(
      'missed',
    );
    expect(
      injectionState({ spec: { containers: [withEnv('HTTP_PROXY')], initContainers: [bare] } }),
    ).toBe('missed');
  });

  it('leaves containers reading ConfigMaps through envFrom to their keys', () => {
    const reading = { ...bare, envFrom: [{ configMapRef: { name: 'proxy' }, prefix: 'APP_' }] };
    const fromSecret = { ...bare, envFrom: [{ secretRef: { name: 'proxy' } }] };
    expect(proxyFacts({ containers: [reading] })).toEqual({
      bare: [{ name: 'c', configMaps: [{ configMapRef: { name: 'proxy' }, prefix: 'APP_' }] }],
    });
    expect(injectionState(pod({}, reading))).toBe('env-from');
    const keys = (...names: string[]) => envFromLookup(new Map([['proxy', { keys: names }]]));
    const plain = { ...bare, envFrom: [{ configMapRef: { name: 'proxy' } }] };
    expect(injectionState(pod({}, plain), { lookup: keys('https_proxy') })).toBe('injected');
    expect(injectionState(pod({}, plain), { lookup: keys('LOG_LEVEL') })).toBe('missed');
    // The name the container sees is the prefix and the key: APP_HTTPS_PROXY is no proxy.
    expect(injectionState(pod({}, reading), { lookup: keys('HTTPS_PROXY') })).toBe('missed');
    // The webhook never reads Secrets, and injects in spite of them.
    expect(injectionState(pod({}, fromSecret))).toBe('missed');
  });

  it('counts as injected whatever the injector leaves, and nothing before it ran', () => {
    // Only HTTPS_PROXY configured; a sidecar it excludes; a container with its own https_proxy;
    // one taking it from a ConfigMap the webhook read.
    const settings = resolveProxySettings(
      parseProxyInjectorConfig({ httpsProxy: 'http://proxy:3128' }),
      {},
    );
    const spec = (): PodSpec => ({
      initContainers: [{ name: 'init' }],
      containers: [
        { name: 'main' },
        { name: 'istio-proxy' },
        { name: 'own', env: [{ name: 'https_proxy', value: 'http://own:8080' }] },
        { name: 'env-from', envFrom: [{ configMapRef: { name: 'proxy' } }] },
      ],
    });
    const lookup = envFromLookup(new Map([['proxy', { keys: ['HTTPS_PROXY'] }]]));
    const before = { spec: spec() };
    const after = { spec: spec() };
    injectPodSpec(after.spec, planInjection(settings), { operation: 'create' }, 'spec', lookup);
    expect(injectionState(after, { lookup })).toBe('injected');
    expect(injectionState(before, { lookup })).toBe('missed');
    expect(proxyFacts(before.spec).bare.map((c) => c.name)).toEqual(['main', 'env-from', 'init']);
  });

  it('tells an opted-out Pod and a mirror Pod', () => {
    expect(injectionState(pod({ 'proxy-injector.kfx.dev/inject': 'False ' }, bare))).toBe(
      'opted-out',
    );
    expect(injectionState(pod({ 'kubernetes.io/config.mirror': 'abc' }, bare))).toBe('mirror');
  });

  it('knows which namespaces the apiserver sends to the webhook (the label opt-out)', () => {
    expect(
      namespaceServed({ metadata: { labels: { 'proxy-injector.kfx.dev/inject': 'false' } } }),
    ).toBe(false);
    expect(namespaceServed({ metadata: { labels: {} } })).toBe(true);
    expect(namespaceServed(undefined)).toBe(true);
  });
});
