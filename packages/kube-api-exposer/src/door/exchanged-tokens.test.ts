import type { KubeClient } from '@kfx/kube-runtime/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ExchangedTokens } from './exchanged-tokens.js';
import type { PodBinding } from './pod-binding.js';

const binding = (uid: string): PodBinding => ({
  namespace: 'hpc',
  serviceAccount: { name: 'default', uid: 'sa-uid' },
  pod: { name: `job-${uid}`, uid },
});

/** A client whose TokenRequests grant `grantedSeconds`, counting what was asked. */
function client(grantedSeconds: number) {
  const asked: { path: string; body: unknown }[] = [];
  const fake = {
    request: (_method: string, path: string, options: { body: unknown }) => {
      asked.push({ path, body: options.body });
      const expirationTimestamp = new Date(Date.now() + grantedSeconds * 1000).toISOString();
      return Promise.resolve({
        spec: { audiences: [] },
        status: { token: `token-${String(asked.length)}`, expirationTimestamp },
      });
    },
  };
  return { client: fake as unknown as KubeClient, asked };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('ExchangedTokens', () => {
  it('asks once per Pod, bound to that Pod, and again once two thirds of the grant have passed', async () => {
    vi.useFakeTimers();
    const { client: fake, asked } = client(600);
    const tokens = new ExchangedTokens(fake, 600);
    const [first, again] = await Promise.all([
      tokens.tokenFor(binding('a')),
      tokens.tokenFor(binding('a')),
    ]);
    expect(first).toBe('token-1');
    expect(again).toBe('token-1');
    expect(asked).toHaveLength(1);
    expect(asked[0]?.path).toBe('/api/v1/namespaces/hpc/serviceaccounts/default/token');
    expect(asked[0]?.body).toMatchObject({
      spec: {
        audiences: [],
        expirationSeconds: 600,
        boundObjectRef: { kind: 'Pod', name: 'job-a', uid: 'a' },
      },
    });
    vi.advanceTimersByTime(390_000);
    expect(await tokens.tokenFor(binding('a'))).toBe('token-1');
    vi.advanceTimersByTime(20_000);
    expect(await tokens.tokenFor(binding('a'))).toBe('token-2');
    expect(await tokens.tokenFor(binding('b'))).toBe('token-3');
  });

  it('renews by what the apiserver granted, not what was asked', async () => {
    vi.useFakeTimers();
    const { client: fake } = client(60);
    const tokens = new ExchangedTokens(fake, 600);
    expect(await tokens.tokenFor(binding('a'))).toBe('token-1');
    vi.advanceTimersByTime(41_000);
    expect(await tokens.tokenFor(binding('a'))).toBe('token-2');
  });

  it('keeps at most the tokens of the Pods it was told, the least recently used forgotten', async () => {
    const { client: fake, asked } = client(600);
    const tokens = new ExchangedTokens(fake, 600, 2);
    await tokens.tokenFor(binding('a'));
    await tokens.tokenFor(binding('b'));
    await tokens.tokenFor(binding('a'));
    await tokens.tokenFor(binding('c'));
    await tokens.tokenFor(binding('a'));
    expect(asked).toHaveLength(3);
    await tokens.tokenFor(binding('b'));
    expect(asked).toHaveLength(4);
  });
});
