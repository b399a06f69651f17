import type { RunEvent, UatResult } from '@kfx/uat-runner';
import { describe, expect, it } from 'vitest';
import { createRenderer, inCi, type Output } from './render.js';
import { JsonRenderer } from './json.js';
import { PlainRenderer } from './plain.js';
import { TtyRenderer } from './tty.js';

function output(isTTY = false, columns = 60): Output & { text: () => string } {
  let text = '';
  return { write: (t) => void (text += t), isTTY, columns, text: () => text };
}

const clock = () => new Date('2026-01-01T00:00:00.000Z');

const events: RunEvent[] = [
  { type: 'step', step: 'job', status: 'start', message: 'Job kfx-uat-abcde' },
  {
    type: 'step',
    step: 'job',
    status: 'done',
    message: 'Job test-kubeflow/kfx-uat-abcde created',
    elapsedMs: 1234,
  },
  { type: 'progress', step: 'start', message: 'pod p Pending' },
  { type: 'log', text: 'collected 3 items' },
  { type: 'junit', lines: 12 },
  { type: 'warning', message: 'the log is incomplete' },
  { type: 'step', step: 'suite', status: 'failed', message: 'the suite failed', elapsedMs: 65_000 },
];

const result = {
  outcome: 'failed',
  exitCode: 1,
  reason: 'the suite failed: container suite exited with code 3',
  junit: { tests: 3, failures: 1, errors: 0, skipped: 0 },
  durationSeconds: 12.34,
  artifactsDir: '/tmp/out',
} as UatResult;

describe('plain output (CI)', () => {
  it('writes one timestamped line per event and a closing line with the exit code', () => {
    const out = output();
    const renderer = new PlainRenderer(out, clock);
    for (const event of events) renderer.event(event);
    renderer.result(result);
    expect(out.text().split('\n')).toEqual([
      '2026-01-01T00:00:00.000Z ▶ Job kfx-uat-abcde',
      '2026-01-01T00:00:00.000Z ✓ Job test-kubeflow/kfx-uat-abcde created (1.2s)',
      '2026-01-01T00:00:00.000Z   … pod p Pending',
      '2026-01-01T00:00:00.000Z   │ collected 3 items',
      '2026-01-01T00:00:00.000Z   │ (a JUnit report of 12 lines: kept for junit.xml)',
      '2026-01-01T00:00:00.000Z   ! the log is incomplete',
      '2026-01-01T00:00:00.000Z ✗ the suite failed (1m05s)',
      '2026-01-01T00:00:00.000Z Artifacts: /tmp/out',
      '2026-01-01T00:00:00.000Z ✗ FAILED: the suite failed: container suite exited with code 3 — JUnit: 3 tests, 1 failures, 0 errors (exit 1, 12.3s)',
      '',
    ]);
  });
});

describe('json output', () => {
  it('writes one JSON object per line, the result last', () => {
    const out = output();
    const renderer = new JsonRenderer(out, clock);
    renderer.event({ type: 'log', text: 'hello' });
    renderer.result(result);
    const lines = out
      .text()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines[0]).toEqual({ time: '2026-01-01T00:00:00.000Z', type: 'log', text: 'hello' });
    expect(lines[1]).toMatchObject({ type: 'result', outcome: 'failed', exitCode: 1 });
  });
});

describe('terminal output', () => {
  it('redraws the running step in place and leaves finished steps as lines', () => {
    const out = output(true, 40);
    const renderer = new TtyRenderer(out, { color: false });
    renderer.event({
      type: 'step',
      step: 'start',
      status: 'start',
      message: 'Pod of Job kfx-uat-abcde',
    });
    renderer.event({
      type: 'progress',
      step: 'start',
      message: 'pod kfx-uat-abcde-x Pending, pulling the image',
    });
    renderer.event({ type: 'log', text: 'a log line' });
    renderer.event({
      type: 'step',
      step: 'start',
      status: 'done',
      message: 'Pod started',
      elapsedMs: 50,
    });
    renderer.close();
    const screen = out.text();
    // The spinner line never wraps: it is cut to the width.
    const redraws = screen.split('\r\u001b[2K').filter((part) => part.startsWith('⠋'));
    expect(redraws.length).toBeGreaterThan(0);
    for (const line of redraws) expect(Array.from(line).length).toBeLessThanOrEqual(39);
    expect(screen).toContain('\r\u001b[2K  │ a log line\n');
    expect(screen).toContain('\r\u001b[2K✓ Pod started (50ms)\n');
  });
});

describe('choosing the output', () => {
  it('uses the terminal view only on a TTY outside CI', () => {
    expect(createRenderer('text', output(true), {})).toBeInstanceOf(TtyRenderer);
    expect(createRenderer('text', output(true), { CI: 'true' })).toBeInstanceOf(PlainRenderer);
    expect(createRenderer('text', output(false), {})).toBeInstanceOf(PlainRenderer);
    expect(createRenderer('json', output(true), {})).toBeInstanceOf(JsonRenderer);
  });

  it('reads CI the way CI systems set it', () => {
    expect([
      inCi({ CI: 'true' }),
      inCi({ CI: '1' }),
      inCi({ CI: 'false' }),
      inCi({ CI: '' }),
      inCi({}),
    ]).toEqual([true, true, false, false, false]);
  });
});
