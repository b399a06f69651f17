import { until } from '@kfx/testenv';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { WorkQueue, type ReconcileContext } from './work-queue.js';

const silent = pino({ level: 'silent' });

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Resolves when `check` holds, polling the event loop. */
describe('WorkQueue', () => {
  it('runs a key added several times before it was picked up once', async () => {
    const queue = new WorkQueue({ name: 'dedupe', logger: silent });
    queue.add('team-a/quotas');
    queue.add('team-a/quotas');
    queue.add('team-a/quotas');
    expect(queue.length).toBe(1);
    const seen: string[] = [];
    const running = queue.run((key) => {
      seen.push(key);
    });
    await queue.shutdown();
    await running;
    expect(seen).toEqual(['team-a/quotas']);
  });

  it('never runs one key twice at once, and runs it once more if it changed meanwhile', async () => {
    const queue = new WorkQueue({ name: 'dirty', workers: 4, logger: silent });
    const gate = deferred();
    let concurrent = 0;
    let maxConcurrent = 0;
    let runs = 0;
    const running = queue.run(async () => {
      runs++;
      concurrent++;
      maxConcurrent = Math.max(maxConcurrent, concurrent);
      if (runs === 1) await gate.promise;
      concurrent--;
    });
    queue.add('a');
    await until(() => queue.inFlight === 1, 'queue.inFlight === 1');
    queue.add('a');
    queue.add('a');
    expect(queue.length).toBe(0);
    gate.resolve();
    await until(() => runs === 2 && queue.inFlight === 0, 'runs === 2 && queue.inFlight === 0');
    await queue.shutdown();
    await running;
    expect(runs).toBe(2);
    expect(maxConcurrent).toBe(1);
  });

  it('processes different keys on N workers at the same time', async () => {
    const queue = new WorkQueue({ name: 'parallel', workers: 3, logger: silent });
    const gate = deferred();
    let concurrent = 0;
    let maxConcurrent = 0;
    const running = queue.run(async () => {
      concurrent++;
      maxConcurrent = Math.max(maxConcurrent, concurrent);
      await gate.promise;
      concurrent--;
    });
    for (const key of ['a', 'b', 'c', 'd', 'e']) queue.add(key);
    await until(() => queue.inFlight === 3, 'queue.inFlight === 3');
    expect(queue.length).toBe(2);
    gate.resolve();
    await queue.shutdown();
    await running;
    expect(maxConcurrent).toBe(3);
  });

  it('retries a failing key with growing backoff and resets it after a success', async () => {
    const queue = new WorkQueue({
      name: 'backoff',
      logger: silent,
      backoff: { baseMs: 1, maxMs: 10 },
    });
    const failures: number[] = [];
    const running = queue.run((_key, context: ReconcileContext) => {
      failures.push(context.failures);
      if (failures.length <= 3) throw new Error('apiserver said no');
    });
    queue.add('a');
    await until(() => failures.length === 4, 'failures.length === 4');
    queue.add('a');
    await until(() => failures.length === 5, 'failures.length === 5');
    await queue.shutdown();
    await running;
    expect(failures).toEqual([0, 1, 2, 3, 0]);
    const metrics = await queue.registry.metrics();
    expect(metrics).toContain('kfx_controller_reconcile_total{name="backoff",result="error"} 3');
    expect(metrics).toContain('kfx_controller_reconcile_total{name="backoff",result="success"} 2');
  });

  it('comes back to a key when the reconciler asks to requeue after a while', async () => {
    const queue = new WorkQueue({ name: 'requeue', logger: silent });
    let runs = 0;
    const running = queue.run(() => {
      runs++;
      return runs === 1 ? { requeueAfterMs: 5 } : undefined;
    });
    queue.add('token/refresh');
    await until(() => runs === 2, 'runs === 2');
    await queue.shutdown();
    await running;
    expect(await queue.registry.metrics()).toContain(
      'kfx_controller_reconcile_total{name="requeue",result="requeue"} 1',
    );
  });

  it('keeps the earlier time when a key is scheduled twice', async () => {
    const queue = new WorkQueue({ name: 'after', logger: silent });
    const seen: string[] = [];
    const running = queue.run((key) => {
      seen.push(key);
    });
    queue.addAfter('a', 5);
    queue.addAfter('a', 3_600_000);
    await until(() => seen.length === 1, 'seen.length === 1');
    await queue.shutdown();
    await running;
    expect(seen).toEqual(['a']);
  });

  it('drains queued keys on shutdown and takes no new ones', async () => {
    const queue = new WorkQueue({ name: 'drain', logger: silent });
    for (const key of ['a', 'b', 'c']) queue.add(key);
    const seen: string[] = [];
    const running = queue.run((key) => {
      seen.push(key);
      queue.add('late');
    });
    await queue.shutdown();
    await running;
    expect(seen).toEqual(['a', 'b', 'c']);
    queue.add('after-shutdown');
    expect(queue.length).toBe(0);
  });

  it('aborts in-flight work and drops queued keys on shutdown without draining', async () => {
    const queue = new WorkQueue({ name: 'abort', logger: silent });
    const seen: string[] = [];
    let aborted = false;
    const running = queue.run(async (key, { signal }) => {
      seen.push(key);
      await new Promise<void>((resolve) => {
        signal.addEventListener('abort', () => {
          aborted = true;
          resolve();
        });
      });
    });
    queue.add('a');
    queue.add('b');
    await until(() => queue.inFlight === 1, 'queue.inFlight === 1');
    await queue.shutdown({ drain: false });
    await running;
    expect(seen).toEqual(['a']);
    expect(aborted).toBe(true);
  });

  it('reports the queue depth and refuses bad options', async () => {
    const queue = new WorkQueue({ name: 'depth', logger: silent });
    queue.add('a');
    queue.add('b');
    expect(await queue.registry.metrics()).toContain('kfx_controller_queue_depth{name="depth"} 2');
    expect(() => new WorkQueue({ name: 'x', workers: 0 })).toThrow(
      'WorkQueue x: workers must be a positive integer, got 0',
    );
    expect(() => new WorkQueue({ name: '' })).toThrow('options.name is required');
  });
});
