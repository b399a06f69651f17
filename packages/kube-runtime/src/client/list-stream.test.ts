import { describe, expect, it } from 'vitest';
import { ListStreamParser } from './list-stream.js';

function parse(text: string, cuts: number[] = []): { fields: unknown; items: unknown[] } {
  const bytes = Buffer.from(text, 'utf8');
  const items: unknown[] = [];
  const parser = new ListStreamParser((item) => items.push(item));
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    parser.write(bytes.subarray(from, cut));
    from = cut;
  }
  return { fields: parser.end(), items };
}

const list = {
  kind: 'ConfigMapList',
  apiVersion: 'v1',
  metadata: { resourceVersion: '42', continue: 'tok"en\\' },
  items: [
    {
      metadata: { name: 'a', annotations: { 'x/y': '{"not":["an","object"]}, ]' } },
      data: { k: 'caf\u00e9 \u2603 \ud83d\ude00 "quoted" \\ back' },
    },
    { metadata: { name: 'b' }, data: { n: '' }, list: [1, [2, { three: [] }], null, true] },
    { metadata: { name: 'c' } },
  ],
};

describe('ListStreamParser', () => {
  it('hands over every item and returns the other fields, as JSON.parse reads them', () => {
    const text = JSON.stringify(list);
    const { fields, items } = parse(text);
    const { items: expected, ...rest } = list;
    expect(items).toEqual(expected);
    expect(fields).toEqual(rest);
  });

  it('gives the same answer wherever the chunks are cut, also inside a UTF-8 character', () => {
    const text = JSON.stringify(list, null, 1);
    const whole = parse(text);
    const length = Buffer.byteLength(text);
    for (let cut = 1; cut < length; cut++) {
      expect(parse(text, [cut])).toEqual(whole);
    }
    // One byte at a time.
    expect(
      parse(
        text,
        Array.from({ length: length - 1 }, (_, i) => i + 1),
      ),
    ).toEqual(whole);
  });

  it('reads items before, after and without the other fields, and an empty list', () => {
    expect(parse('{"items":[{"a":1}],"metadata":{"resourceVersion":"7"}}')).toEqual({
      fields: { metadata: { resourceVersion: '7' } },
      items: [{ a: 1 }],
    });
    expect(parse(' { "items" : [ ] } ')).toEqual({ fields: {}, items: [] });
    expect(parse('{"items":null}')).toEqual({ fields: { items: null }, items: [] });
    expect(parse('{}')).toEqual({ fields: {}, items: [] });
  });

  it('hands over each item before the rest of the answer has arrived', () => {
    const seen: unknown[] = [];
    const parser = new ListStreamParser((item) => seen.push(item));
    parser.write(Buffer.from('{"items":[{"n":1},{"n":'));
    expect(seen).toEqual([{ n: 1 }]);
    parser.write(Buffer.from('2}]}'));
    expect(seen).toEqual([{ n: 1 }, { n: 2 }]);
    parser.end();
  });

  it('refuses what is not a list answer, naming what is wrong', () => {
    expect(() => parse('[1,2]')).toThrow('reading a list: the answer is not a JSON object');
    expect(() => parse('{"items":[{"a":1}')).toThrow('the answer ended before the list did');
    expect(() => parse('{"items":[{"a":}]}')).toThrow('a value is not JSON: {"a":}');
    expect(() => parse('{"a" 1}')).toThrow('expected ":" after "a"');
    expect(() => parse('{"a":1} x')).toThrow('text after the end of the answer');
    expect(() => parse('{"a":1 "b":2}')).toThrow('a value is not JSON: 1 "b":2');
    expect(() => parse('{"items":[] "b":2}')).toThrow('expected "," or "}" after a field');
  });
});
