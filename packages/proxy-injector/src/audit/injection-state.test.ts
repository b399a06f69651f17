import { describe, expect, it } from 'vitest';
import { injectionState, namespaceServed } from './injection-state.js';

const pod = (annotations: Record<string, string> = {}) => ({ metadata: { annotations } });

describe('what became of a Pod at admission', () => {
  it('tells a handled Pod, an opted-out one and a mirror Pod from one the injector never saw', () => {
    expect(injectionState(pod({ 'proxy-injector.kfx.dev/injected': 'true' }))).toBe('injected');
    expect(injectionState(pod({ 'proxy-injector.kfx.dev/inject': 'False ' }))).toBe('opted-out');
    expect(injectionState(pod({ 'kubernetes.io/config.mirror': 'abc' }))).toBe('mirror');
    expect(injectionState(pod())).toBe('missed');
    expect(injectionState({})).toBe('missed');
  });

  it('knows which namespaces the apiserver sends to the webhook (the label opt-out)', () => {
    expect(
      namespaceServed({ metadata: { labels: { 'proxy-injector.kfx.dev/inject': 'false' } } }),
    ).toBe(false);
    expect(namespaceServed({ metadata: { labels: {} } })).toBe(true);
    expect(namespaceServed(undefined)).toBe(true);
  });
});
