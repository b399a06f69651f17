import { describe, expect, it } from 'vitest';
import { mergeNoProxy, proxyEnvFrom } from './proxy-env.js';

describe('proxyEnvFrom', () => {
  it('passes the proxy on in both cases and keeps cluster names off the proxy', () => {
    const env = proxyEnvFrom({
      https_proxy: 'http://proxy.corp:3128',
      HTTP_PROXY: 'http://proxy.corp:3128',
      NO_PROXY: 'corp.example, .internal',
    });
    expect(env.HTTPS_PROXY).toBe('http://proxy.corp:3128');
    expect(env.https_proxy).toBe('http://proxy.corp:3128');
    expect(env.http_proxy).toBe('http://proxy.corp:3128');
    expect(env.NO_PROXY).toBe(
      'corp.example,.internal,localhost,127.0.0.1,.svc,.svc.cluster.local,.cluster.local,kubernetes.default.svc',
    );
    expect(env.no_proxy).toBe(env.NO_PROXY);
  });

  it('prefers the upper-case spelling when both are set', () => {
    expect(proxyEnvFrom({ HTTPS_PROXY: 'http://a:1', https_proxy: 'http://b:2' }).HTTPS_PROXY).toBe(
      'http://a:1',
    );
  });

  it('is empty when the runner has no proxy', () => {
    expect(proxyEnvFrom({ NO_PROXY: '.corp', PATH: '/bin' })).toEqual({});
    expect(proxyEnvFrom({ HTTPS_PROXY: '  ' })).toEqual({});
  });
});

describe('mergeNoProxy', () => {
  it('drops empty and duplicate entries and keeps the order', () => {
    expect(mergeNoProxy(' a,,b ,a', ['b', 'c'])).toBe('a,b,c');
  });
});
