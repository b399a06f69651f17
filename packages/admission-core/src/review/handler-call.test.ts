import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { handlerContext } from './handler-call.js';
import type { AdmissionRequest } from './admission-review.js';

const request = { uid: 'u-1', dryRun: true } as AdmissionRequest<object>;

describe('handlerContext', () => {
  it('makes the logger child and the signal on first use, and aborts only a signal that exists', () => {
    const lines: string[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const first = handlerContext('proxy', request, log);
    first.abort(new Error('late')); // no signal yet: nothing to abort, nothing thrown
    expect(first.context.dryRun).toBe(true);
    first.context.log.info('hello');
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ webhook: 'proxy', uid: 'u-1' });
    const second = handlerContext('proxy', request, log);
    const signal = second.context.signal;
    expect(second.context.signal).toBe(signal);
    second.abort(new Error('timed out'));
    expect(signal.reason).toEqual(new Error('timed out'));
  });

  it('keeps its getters on a shared prototype, not on each context', () => {
    // A per-request object literal with getters gets a hidden class of its own, which keeps the
    // request alive in old space and slows every young-generation collection.
    const a = handlerContext('proxy', request, pino({ level: 'silent' })).context;
    const b = handlerContext('proxy', request, pino({ level: 'silent' })).context;
    expect(Object.getOwnPropertyDescriptor(a, 'log')).toBeUndefined();
    expect(Object.getPrototypeOf(a)).toBe(Object.getPrototypeOf(b));
  });
});
