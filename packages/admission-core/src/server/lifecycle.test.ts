import { postH1 } from '@kfx/testenv';
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../testing/test-server.js';
import { defineMutatingWebhook } from '../webhook.js';

function cachedWebhook(failStart = false) {
  const events: string[] = [];
  let synced = false;
  const webhook = defineMutatingWebhook({
    name: 'cached',
    path: '/mutate/cached',
    failureMode: 'admit',
    mutate: () => ({ allowed: true }),
    start() {
      events.push('start');
      return failStart ? Promise.reject(new Error('cannot list ConfigMaps')) : Promise.resolve();
    },
    stop() {
      events.push('stop');
      return Promise.resolve();
    },
    readiness: () =>
      synced ? { ok: true, reasons: [] } : { ok: false, reasons: ['ConfigMap cache not synced'] },
  });
  return { webhook, events, sync: () => (synced = true) };
}

describe('webhook life cycle hooks', () => {
  it('starts webhooks before serving, reports their readiness on /readyz, stops them after close', async () => {
    const cached = cachedWebhook();
    const t = await startTestServer({ webhooks: [cached.webhook] });
    expect(cached.events).toEqual(['start']);
    const get = (path: string) => postH1(t.port, path, '', { ca: t.certs.caCert, method: 'GET' });
    expect(await get('/readyz')).toMatchObject({
      status: 503,
      body: 'cached: ConfigMap cache not synced\n',
    });
    expect((await get('/healthz')).status).toBe(200);
    cached.sync();
    expect(await get('/readyz')).toMatchObject({ status: 200, body: 'ok\n' });
    await t.stop();
    expect(cached.events).toEqual(['start', 'stop']);
  });

  it('fails start() naming the webhook when its start hook fails, and stops what it started', async () => {
    const cached = cachedWebhook(true);
    await expect(startTestServer({ webhooks: [cached.webhook] })).rejects.toThrow(
      'webhook cached failed to start: cannot list ConfigMaps',
    );
    // A half-started webhook (caches retrying) would keep the process alive.
    expect(cached.events).toEqual(['start', 'stop']);
  });
});
