import { describe, expect, it } from 'vitest';
import { EXPIRY_SLACK_MS, judgeRun, runExpiresAt } from './expiry.js';
import { runLabels } from '../base/names.js';

const now = new Date('2030-01-01T12:00:00.000Z');
const object = (runId: string, expires?: string, labels = runLabels(runId)) => ({
  metadata: {
    name: 'x',
    labels,
    ...(expires === undefined ? {} : { annotations: { 'uat.kfx.dev/expires': expires } }),
  },
});

describe('runExpiresAt', () => {
  it('adds up every limit a run waits under, plus slack', () => {
    const at = runExpiresAt(now, {
      profileTimeoutMs: 120_000,
      timeoutMs: 3_600_000,
      cleanupTimeoutMs: 120_000,
    });
    expect(at.getTime() - now.getTime()).toBe(
      2 * 120_000 + 3_600_000 + 2 * 120_000 + EXPIRY_SLACK_MS,
    );
  });
});

describe('judgeRun', () => {
  it('calls a run dead once its deadline has passed, and alive before', () => {
    expect(judgeRun(object('abcde', '2030-01-01T11:57:00.000Z'), now)).toEqual({
      runId: 'abcde',
      dead: true,
      why: 'its deadline passed 3m ago',
    });
    expect(judgeRun(object('abcde', '2030-01-01T12:30:00.000Z'), now)).toEqual({
      runId: 'abcde',
      dead: false,
      why: 'it may still be running (until 2030-01-01T12:30:00.000Z)',
    });
  });

  it('leaves alone what a run kept on purpose or dated unreadably', () => {
    expect(judgeRun(object('kept1'), now)).toMatchObject({
      dead: false,
      why: expect.stringContaining('--keep') as string,
    });
    expect(judgeRun(object('odd', 'tomorrow'), now)).toMatchObject({
      dead: false,
      why: 'uat.kfx.dev/expires "tomorrow" is no time',
    });
  });

  it('with a run id, calls that run dead whatever its deadline, and no other', () => {
    expect(judgeRun(object('abcde', '2099-01-01T00:00:00.000Z'), now, 'abcde')).toMatchObject({
      dead: true,
    });
    expect(judgeRun(object('fghij', '2000-01-01T00:00:00.000Z'), now, 'abcde')).toMatchObject({
      dead: false,
    });
  });

  it('knows nothing of objects no run made', () => {
    expect(judgeRun(object('abcde', '2000-01-01T00:00:00.000Z', {}), now)).toBeUndefined();
    expect(
      judgeRun(
        object('x', '2000-01-01T00:00:00.000Z', { 'app.kubernetes.io/managed-by': 'kfx-uat' }),
        now,
      ),
    ).toBeUndefined();
    expect(
      judgeRun(
        object('x', '2000-01-01T00:00:00.000Z', {
          ...runLabels('x'),
          'app.kubernetes.io/managed-by': 'helm',
        }),
        now,
      ),
    ).toBeUndefined();
  });
});
