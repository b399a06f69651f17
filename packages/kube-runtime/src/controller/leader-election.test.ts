// A leader whose renewals hang (a partitioned node, an overloaded apiserver) must stop leading by
// the renew deadline, however long the hung request would take. A real apiserver cannot be made
// to hang on demand, so this one case runs against a scripted API.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { KubeClient } from '../client/client.js';
import { LeaderElector } from './leader-election.js';
import { json, startFakeApi } from '../testing/fake-api.js';

const silent = pino({ level: 'silent' });

describe('LeaderElector', () => {
  it('stops leading by the renew deadline when a renewal hangs', async () => {
    const api = await startFakeApi();
    let hang = false;
    api.handle((request, response) => {
      if (hang) return; // never answers
      if (request.method === 'GET') {
        json(response, 404, { kind: 'Status', apiVersion: 'v1', code: 404, reason: 'NotFound' });
        return;
      }
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const lease = JSON.parse(body) as { metadata: object };
        json(response, 201, { ...lease, metadata: { ...lease.metadata, resourceVersion: '1' } });
      });
    });
    const client = KubeClient.fromKubeConfig(api.kubeConfig, { logger: silent });
    const elector = new LeaderElector({
      client,
      namespace: 'kfx-system',
      name: 'hang',
      identity: 'a',
      leaseDurationSeconds: 3,
      renewDeadlineSeconds: 1,
      retryPeriodSeconds: 0.2,
      logger: silent,
    });
    let started = 0;
    const ended = new Promise<void>((resolve) => {
      void elector.run({
        onStartedLeading: () => {
          started = Date.now();
          hang = true;
        },
        onStoppedLeading: resolve,
      });
    });
    // isLeader() is judged by the clock: never true once the deadline has passed since the
    // acquiring write began (which was before onStartedLeading), whatever the event loop does.
    const lateClaims: number[] = [];
    const sampler = setInterval(() => {
      const since = Date.now() - started;
      if (started > 0 && since >= 1000 && elector.isLeader()) lateClaims.push(since);
    }, 5);
    await ended;
    clearInterval(sampler);
    expect(started).toBeGreaterThan(0);
    expect(lateClaims).toEqual([]);
    expect(elector.isLeader()).toBe(false);
    await elector.stop();
    client.close();
    await api.close();
  });

  it('renews at once after a slow acquisition instead of stepping down', async () => {
    const api = await startFakeApi();
    let lease: { metadata: Record<string, unknown> } | undefined;
    let version = 0;
    const store = (body: string) => {
      const sent = JSON.parse(body) as { metadata: Record<string, unknown> };
      version += 1;
      lease = { ...sent, metadata: { ...sent.metadata, resourceVersion: String(version) } };
      return lease;
    };
    api.handle((request, response) => {
      if (request.method === 'GET') {
        if (lease) json(response, 200, lease);
        else json(response, 404, { kind: 'Status', apiVersion: 'v1', code: 404 });
        return;
      }
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        // The create takes most of the renew deadline; renewals are quick.
        const delay = request.method === 'POST' ? 1200 : 0;
        setTimeout(() => {
          json(response, request.method === 'POST' ? 201 : 200, store(body));
        }, delay);
      });
    });
    const client = KubeClient.fromKubeConfig(api.kubeConfig, { logger: silent });
    const elector = new LeaderElector({
      client,
      namespace: 'kfx-system',
      name: 'slow',
      identity: 'a',
      leaseDurationSeconds: 4,
      renewDeadlineSeconds: 2,
      retryPeriodSeconds: 0.8,
      logger: silent,
    });
    let stopped = 0;
    const led = new Promise<void>((resolve) => {
      void elector.run({
        onStartedLeading: () => {
          resolve();
        },
        onStoppedLeading: () => {
          stopped += 1;
        },
      });
    });
    await led;
    // Two whole renew deadlines later it still leads: it renewed in time after the slow start.
    await new Promise((resolve) => setTimeout(resolve, 4000));
    expect(stopped).toBe(0);
    expect(elector.isLeader()).toBe(true);
    await elector.stop();
    client.close();
    await api.close();
  }, 20_000);
});
