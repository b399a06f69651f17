import { Counter, Registry } from 'prom-client';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startOpsServer, type OpsServer } from './ops-server.js';

let server: OpsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function get(
  path: string,
  method = 'GET',
): Promise<{ status: number; body: string; type: string | null }> {
  const response = await fetch(`${server?.url ?? ''}${path}`, { method });
  return {
    status: response.status,
    body: await response.text(),
    type: response.headers.get('content-type'),
  };
}

describe('ops server', () => {
  it('serves liveness, readiness with reasons, and the registry in Prometheus text', async () => {
    const registry = new Registry();
    new Counter({ name: 'kfx_test_things_total', help: 'things', registers: [registry] }).inc(3);
    let ready = { ok: false, reasons: ['informer configmaps has not synced', 'not the leader'] };
    server = await startOpsServer({ port: 0, host: '127.0.0.1', registry, readiness: () => ready });
    expect(await get('/healthz')).toMatchObject({ status: 200, body: 'ok\n' });
    expect(await get('/readyz')).toMatchObject({
      status: 503,
      body: '- informer configmaps has not synced\n- not the leader\n',
    });
    ready = { ok: true, reasons: [] };
    expect(await get('/readyz')).toMatchObject({ status: 200, body: 'ok\n' });
    const metrics = await get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.type).toContain('text/plain');
    expect(metrics.body).toContain('kfx_test_things_total 3');
  });

  it('answers 503 when a check throws, 404 and 405 for the rest', async () => {
    server = await startOpsServer({
      port: 0,
      host: '127.0.0.1',
      registry: new Registry(),
      readiness: () => {
        throw new Error('cache exploded');
      },
      liveness: () => Promise.resolve({ ok: false, reasons: ['event loop stuck'] }),
      logger: pino({ level: 'silent' }),
    });
    expect(await get('/readyz')).toMatchObject({
      status: 503,
      body: '- the check threw: cache exploded\n',
    });
    expect(await get('/healthz')).toMatchObject({ status: 503, body: '- event loop stuck\n' });
    expect((await get('/nope')).status).toBe(404);
    expect((await get('/metrics', 'POST')).status).toBe(405);
  });

  it('lets two servers with their own registries live in one process', async () => {
    const first = await startOpsServer({
      port: 0,
      host: '127.0.0.1',
      registry: new Registry(),
      readiness: () => ({ ok: true, reasons: [] }),
    });
    server = await startOpsServer({
      port: 0,
      host: '127.0.0.1',
      registry: new Registry(),
      readiness: () => ({ ok: true, reasons: [] }),
    });
    expect(first.port).not.toBe(server.port);
    await first.close();
    expect((await get('/healthz')).status).toBe(200);
  });
});
