import { describe, expect, it } from 'vitest';
import { messageOf } from './message-of.js';

describe('messageOf', () => {
  it('reads the message of an Error, and its name when the message is empty', () => {
    expect(messageOf(new TypeError('bad port'))).toBe('bad port');
    expect(messageOf(new RangeError())).toBe('RangeError');
  });

  it('says what was thrown when it is not an Error', () => {
    expect(messageOf('plain text')).toBe('plain text');
    expect(messageOf({ code: 'EACCES' })).toBe('{"code":"EACCES"}');
    expect(messageOf(42)).toBe('42');
    expect(messageOf(undefined)).toBe('undefined');
    expect(messageOf(10n)).toBe('10');
    expect(messageOf(Object.create(null))).toBe('{}');
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(messageOf(cycle)).toBe('[object Object]');
  });
});
