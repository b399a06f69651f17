// Leader election between two electors on a real Lease: one leads, the other stands by; a
// graceful stop hands over at once (well before the lease would expire); a leader that can no
// longer reach the API steps down and the standby takes over after the lease duration. The two
// are never leaders at the same time.
import { useSharedControlPlane, waitFor, type SharedControlPlane } from '@kfx/testenv';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { KubeClient } from '../client/client.js';
import { LeaderElector } from './leader-election.js';
import type { Lease } from './lease.js';
import { resources } from '../client/resources.js';

const logger = pino({ level: 'silent' });
let env: SharedControlPlane;
let admin: KubeClient;

beforeAll(async () => {
  env = await useSharedControlPlane(inject('kfxControlPlane'), 'leader-election');
  admin = KubeClient.fromKubeConfig(env.kubeConfig, { logger });
});
afterAll(async () => {
  admin.close();
  await env.release();
});

interface Candidate {
  elector: LeaderElector;
  client: KubeClient;
  terms: number;
  stopped: number;
  running: Promise<void>;
}

function candidate(
  identity: string,
  lease: string,
  timing: { lease: number; renew: number; retry: number },
): Candidate {
  const client = KubeClient.fromKubeConfig(env.kubeConfig, { logger, retry: { retries: 0 } });
  const elector = new LeaderElector({
    client,
    namespace: env.namespace,
    name: lease,
    identity,
    leaseDurationSeconds: timing.lease,
    renewDeadlineSeconds: timing.renew,
    retryPeriodSeconds: timing.retry,
    logger,
  });
  const c: Candidate = { elector, client, terms: 0, stopped: 0, running: Promise.resolve() };
  c.running = elector.run({
    onStartedLeading: (signal) =>
      new Promise<void>((resolve) => {
        c.terms++;
        signal.addEventListener('abort', () => {
          resolve();
        });
      }),
    onStoppedLeading: () => {
      c.stopped++;
    },
  });
  return c;
}

/** Samples both candidates while `during` runs; fails if both ever lead at once. */
async function neverBothLead<T>(a: Candidate, b: Candidate, during: () => Promise<T>): Promise<T> {
  let both = false;
  const sampler = setInterval(() => {
    if (a.elector.isLeader() && b.elector.isLeader()) both = true;
  }, 20);
  try {
    return await during();
  } finally {
    clearInterval(sampler);
    expect(both).toBe(false);
  }
}

const leaderOf = (a: Candidate, b: Candidate) =>
  a.elector.isLeader() ? 'a' : b.elector.isLeader() ? 'b' : undefined;

const lease = (name: string) =>
  admin.get<Lease>(resources.leases, name, { namespace: env.namespace });

describe('leader election on a real Lease', () => {
  it('elects one leader and hands over at once on a graceful stop', async () => {
    // A long lease: a standby that had to wait for it to expire would miss the 20 s wait below.
    const timing = { lease: 60, renew: 10, retry: 0.5 };
    const a = candidate('a', 'graceful', timing);
    const first = await waitFor(
      () =>
        Promise.resolve(
          a.elector.isLeader() ? { done: true, value: 'a' } : { done: false, saw: 'no leader' },
        ),
      { description: 'a to lead' },
    );
    expect(first).toBe('a');
    const b = candidate('b', 'graceful', timing);
    await neverBothLead(a, b, async () => {
      await waitFor(
        () =>
          Promise.resolve(
            b.elector.leader === 'a'
              ? { done: true, value: undefined }
              : { done: false, saw: String(b.elector.leader) },
          ),
        { description: 'b to see a as leader' },
      );
      expect(b.elector.isLeader()).toBe(false);
      expect((await lease('graceful')).spec?.holderIdentity).toBe('a');

      await a.elector.stop();
      expect(a.stopped).toBe(1);
      expect(a.elector.isLeader()).toBe(false);
      await waitFor(
        () =>
          Promise.resolve(
            leaderOf(a, b) === 'b'
              ? { done: true, value: undefined }
              : { done: false, saw: String(leaderOf(a, b)) },
          ),
        { description: 'b to take over', timeoutMs: 20_000 },
      );
    });
    const spec = (await lease('graceful')).spec;
    expect(spec?.holderIdentity).toBe('b');
    expect(spec?.leaseTransitions).toBe(1);
    expect(b.terms).toBe(1);
    await b.elector.stop();
    expect((await lease('graceful')).spec?.holderIdentity).toBe('');
    a.client.close();
    b.client.close();
  });

  it('lets the standby take over within the lease time when the leader loses the API', async () => {
    const timing = { lease: 4, renew: 2, retry: 0.5 };
    const a = candidate('a', 'crash', timing);
    await waitFor(
      () =>
        Promise.resolve(
          a.elector.isLeader()
            ? { done: true, value: undefined }
            : { done: false, saw: 'no leader' },
        ),
      { description: 'a to lead' },
    );
    const b = candidate('b', 'crash', timing);
    await neverBothLead(a, b, async () => {
      await waitFor(
        () =>
          Promise.resolve(
            b.elector.leader === 'a'
              ? { done: true, value: undefined }
              : { done: false, saw: String(b.elector.leader) },
          ),
        { description: 'b to see a as leader' },
      );
      // a can no longer renew, as if its node were cut off; it cannot release the lease either.
      a.client.close();
      await waitFor(
        () =>
          Promise.resolve(
            leaderOf(a, b) === 'b'
              ? { done: true, value: undefined }
              : { done: false, saw: String(leaderOf(a, b)) },
          ),
        { description: 'b to take over', timeoutMs: 30_000 },
      );
    });
    expect(a.stopped).toBe(1);
    expect((await lease('crash')).spec?.holderIdentity).toBe('b');
    await a.elector.stop();
    await b.elector.stop();
    b.client.close();
  });

  it('refuses inconsistent timings', () => {
    expect(
      () =>
        new LeaderElector({
          client: admin,
          namespace: 'n',
          name: 'l',
          identity: 'x',
          leaseDurationSeconds: 10,
          renewDeadlineSeconds: 10,
        }),
    ).toThrow('renewDeadlineSeconds must be less than leaseDurationSeconds');
    expect(
      () => new LeaderElector({ client: admin, namespace: 'n', name: 'l', identity: '' }),
    ).toThrow('LeaderElector: options.identity is required');
  });
});
