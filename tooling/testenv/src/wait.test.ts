import { describe, expect, it } from 'vitest';
import { waitFor, WaitTimeoutError } from './wait.js';

describe('waitFor', () => {
  it('returns the value once the check is done', async () => {
    let calls = 0;
    const value = await waitFor(
      () =>
        Promise.resolve(
          ++calls < 3
            ? { done: false as const, saw: `call ${calls}` }
            : { done: true as const, value: 'ok' },
        ),
      { description: 'three calls', intervalMs: 1 },
    );
    expect(value).toBe('ok');
    expect(calls).toBe(3);
  });

  it('says what it waited for and what it last saw when it times out', async () => {
    const wait = waitFor(
      () => Promise.resolve({ done: false as const, saw: 'phase Terminating' }),
      {
        description: 'namespace team-a to be gone',
        timeoutMs: 30,
        intervalMs: 5,
      },
    );
    await expect(wait).rejects.toBeInstanceOf(WaitTimeoutError);
    await expect(wait).rejects.toThrow(
      /waiting for namespace team-a to be gone; last saw: phase Terminating/,
    );
  });

  it('keeps waiting through errors and reports the last one', async () => {
    const wait = waitFor(() => Promise.reject(new Error('connection refused')), {
      description: 'the apiserver',
      timeoutMs: 30,
      intervalMs: 5,
    });
    await expect(wait).rejects.toThrow(/last saw: error: connection refused/);
  });
});
