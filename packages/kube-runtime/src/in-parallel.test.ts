import { describe, expect, it } from 'vitest';
import { inParallel } from './in-parallel.js';

describe('inParallel', () => {
  it('runs every item, never more than `width` at once', async () => {
    let running = 0;
    let most = 0;
    const done: number[] = [];
    await inParallel([...Array(50).keys()], 4, async (item) => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setImmediate(resolve));
      done.push(item);
      running--;
    });
    expect(most).toBe(4);
    expect(done.sort((a, b) => a - b)).toEqual([...Array(50).keys()]);
  });

  it('rejects with the first failure, and takes an empty list', async () => {
    await expect(
      inParallel([1, 2, 3], 2, async (item) => {
        if (item === 2) throw new Error('two');
        await Promise.resolve();
      }),
    ).rejects.toThrow('two');
    await expect(inParallel([], 8, () => Promise.resolve())).resolves.toBeUndefined();
  });
});
