import { describe, expect, it } from 'vitest';
import { LineSplitter, LogCursor, parseLogLine } from './log-lines.js';

describe('LineSplitter', () => {
  it('joins lines cut across chunks, even inside a character', () => {
    const splitter = new LineSplitter();
    const bytes = Buffer.from('héllo\r\nwor');
    expect(splitter.push(bytes.subarray(0, 2))).toEqual([]);
    expect(splitter.push(bytes.subarray(2))).toEqual(['héllo']);
    expect(splitter.push('ld\npartial')).toEqual(['world']);
    expect(splitter.flush()).toBe('partial');
    expect(splitter.flush()).toBeUndefined();
  });
});

describe('parseLogLine', () => {
  it('normalises the timestamp so that timestamps compare as strings', () => {
    expect(parseLogLine('2026-01-01T00:00:00.5Z hello world')).toEqual({
      timestamp: '2026-01-01T00:00:00.500000000Z',
      text: 'hello world',
    });
    expect(parseLogLine('2026-01-01T02:00:01+02:00 x').timestamp).toBe(
      '2026-01-01T00:00:01.000000000Z',
    );
  });

  it('keeps a line without a timestamp as it is', () => {
    expect(parseLogLine('no stamp')).toEqual({ text: 'no stamp' });
  });
});

describe('LogCursor', () => {
  const line = (second: number, text: string) =>
    parseLogLine(`2026-01-01T00:00:0${second}.1Z ${text}`);

  it('skips what a resumed stream repeats, including lines with the same timestamp', () => {
    const cursor = new LogCursor();
    expect(cursor.sinceTime()).toBeUndefined();
    const first = [line(1, 'a'), line(2, 'b'), line(2, 'c')];
    expect(first.map((l) => cursor.accept(l))).toEqual([true, true, true]);
    expect(cursor.sinceTime()).toBe('2026-01-01T00:00:02Z');

    // The server resends from second 2: b and c again, then a new line d with the same stamp.
    cursor.resume();
    const second = [line(1, 'a'), line(2, 'b'), line(2, 'c'), line(2, 'd'), line(3, 'e')];
    expect(second.map((l) => cursor.accept(l))).toEqual([false, false, false, true, true]);
  });

  it('accepts every line of a stream that is not a resumption', () => {
    const cursor = new LogCursor();
    expect([line(1, 'a'), line(1, 'a')].map((l) => cursor.accept(l))).toEqual([true, true]);
  });
});
