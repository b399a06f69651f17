import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../config-issues.js';
import { Runtime, type RuntimeOptions } from './runtime.js';

const logger = pino({ level: 'silent' });
const runtimes: Runtime[] = [];

function runtime(options: Partial<RuntimeOptions> = {}): Runtime {
  const made = new Runtime({
    name: 'test',
    logger,
    ops: false,
    signals: ['SIGUSR2'],
    exit: vi.fn(),
    stderr: vi.fn(),
    ...options,
  });
  runtimes.push(made);
  return made;
}

afterEach(async () => {
  for (const made of runtimes.splice(0)) await made.stop();
});

describe('Runtime', () => {
  it('starts the components, then the leader work, and stops them in reverse order', async () => {
    const order: string[] = [];
    const r = runtime();
    for (const name of ['a', 'b']) {
      r.add({
        name,
        start: () => void order.push(`start ${name}`),
        stop: () => void order.push(`stop ${name}`),
      });
    }
    r.lead({
      name: 'work',
      lead: async (signal) => {
        order.push('lead');
        await new Promise((resolve) => {
          signal.addEventListener('abort', resolve);
        });
        order.push('lead ended');
      },
    });
    await r.start();
    await r.stop();
    await r.done;
    expect(order).toEqual(['start a', 'start b', 'lead', 'lead ended', 'stop b', 'stop a']);
  });

  it('serves /readyz from every component, and is not ready once stopping', async () => {
    let release!: () => void;
    const draining = new Promise<void>((resolve) => (release = resolve));
    const r = runtime({ ops: { port: 0, host: '127.0.0.1' }, registry: new Registry() });
    r.add({ name: 'caches', ready: () => ({ ok: false, reasons: ['informer x has not synced'] }) });
    r.add({ name: 'server', stop: () => draining });
    await r.start();
    const readyz = `${r.opsUrl ?? ''}/readyz`;
    const before = await fetch(readyz);
    expect([before.status, await before.text()]).toEqual([503, '- informer x has not synced\n']);
    const stopped = r.stop();
    const during = await fetch(readyz);
    expect([during.status, await during.text()]).toEqual([503, '- stopping\n']);
    release();
    await stopped;
  });

  it('run() resolves 0 after a signal and the drain; a second signal exits 1 at once', async () => {
    let release!: () => void;
    const draining = new Promise<void>((resolve) => (release = resolve));
    const exit = vi.fn();
    const r = runtime({ exit });
    r.add({ name: 'server', stop: () => draining });
    const code = r.run();
    await r.start();
    process.emit('SIGUSR2', 'SIGUSR2');
    expect(exit).not.toHaveBeenCalled();
    process.emit('SIGUSR2', 'SIGUSR2');
    expect(exit).toHaveBeenCalledWith(1);
    release();
    expect(await code).toBe(0);
  });

  it('run() resolves 2 when a bad configuration stopped the start, 1 for anything else', async () => {
    const stderr = vi.fn();
    const bad = runtime({ stderr }).add({
      name: 'x',
      start: () => Promise.reject(new ConfigError(['port: expected a number'])),
    });
    expect(await bad.run()).toBe(2);
    expect(stderr).toHaveBeenCalledWith(expect.stringMatching(/^test: cannot start: invalid/));
    const stopped = vi.fn();
    const failing = runtime().add({ name: 'a', stop: stopped });
    failing.add({ name: 'b', start: () => Promise.reject(new Error('no certificate')) });
    expect(await failing.run()).toBe(1);
    expect(stopped).toHaveBeenCalled();
  });

  it('run() resolves 1 when the leader work fails, after stopping everything', async () => {
    const stopped = vi.fn();
    const r = runtime().add({ name: 'caches', stop: stopped });
    r.lead({ name: 'work', lead: () => Promise.reject(new Error('the queue broke')) });
    expect(await r.run()).toBe(1);
    expect(stopped).toHaveBeenCalled();
    await expect(r.done).rejects.toThrow('the queue broke');
  });

  it('a stop while starting aborts the start and ends gracefully', async () => {
    const r = runtime().add({
      name: 'caches',
      start: (signal) =>
        new Promise((_, reject) => {
          signal.addEventListener('abort', () => {
            reject(new Error('aborted'));
          });
        }),
    });
    const code = r.run();
    await Promise.resolve();
    await r.stop();
    expect(await code).toBe(0);
  });

  it('reloads the components that can on SIGHUP under run()', async () => {
    const reload = vi.fn();
    const r = runtime().add({ name: 'tls', reload });
    const code = r.run();
    await r.start();
    process.emit('SIGHUP', 'SIGHUP');
    expect(reload).toHaveBeenCalledOnce();
    await r.stop();
    expect(await code).toBe(0);
  });
});
