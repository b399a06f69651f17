import { notebookPod } from '@kfx/testenv/bench';
import fc from 'fast-check';
import jsonPatch from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import {
  buildPatch,
  encodePatch,
  InvalidPatchError,
  patchText,
  PatchTooLargeError,
  type PatchOperation,
} from './patch.js';

function apply(original: object, operations: ReturnType<typeof buildPatch>): unknown {
  return jsonPatch.applyPatch(structuredClone(original), operations, true, false).newDocument;
}

describe('buildPatch', () => {
  it('escapes ~ and / in keys so each operation targets exactly one annotation', () => {
    const original = { metadata: { annotations: { 'a~1b': 'x', 'kfx.dev/mode': 'old' } } };
    const mutated = {
      metadata: {
        annotations: {
          'a~1b': 'y',
          'kfx.dev/mode': 'new',
          'proxy-injector.kfx.dev/inject': 'false',
        },
      },
    };
    const operations = buildPatch(original, mutated);
    expect(operations).toEqual(
      expect.arrayContaining([
        { op: 'replace', path: '/metadata/annotations/a~01b', value: 'y' },
        { op: 'replace', path: '/metadata/annotations/kfx.dev~1mode', value: 'new' },
        { op: 'add', path: '/metadata/annotations/proxy-injector.kfx.dev~1inject', value: 'false' },
      ]),
    );
    expect(operations).toHaveLength(3);
    expect(apply(original, operations)).toEqual(mutated);
  });

  it('appends to arrays: one add at the end, the existing elements untouched', () => {
    const pod = notebookPod();
    const mutated = structuredClone(pod);
    mutated.spec?.containers[1]?.env?.push({ name: 'HTTP_PROXY', value: 'http://proxy:3128' });
    const operations = buildPatch(pod, mutated);
    const length = pod.spec?.containers[1]?.env?.length ?? 0;
    expect(operations).toEqual([
      {
        op: 'add',
        path: `/spec/containers/1/env/${length}`,
        value: { name: 'HTTP_PROXY', value: 'http://proxy:3128' },
      },
    ]);
  });

  it('still produces a correct (if long) patch when a handler inserts in front', () => {
    const original = { list: ['a', 'b', 'c'] };
    const mutated = { list: ['z', 'a', 'b', 'c'] };
    const operations = buildPatch(original, mutated);
    // Index-based: every element shifts, which is why handlers should append.
    expect(operations.length).toBeGreaterThan(1);
    expect(apply(original, operations)).toEqual(mutated);
  });

  it('gives no operations when nothing changed, even if the handler set a property to undefined', () => {
    const pod = notebookPod();
    const same = structuredClone(pod);
    expect(buildPatch(pod, same)).toEqual([]);
    Object.assign(same.metadata ?? {}, { deletionGracePeriodSeconds: undefined });
    expect(buildPatch(pod, same)).toEqual([]);
  });

  it('removes a property the handler deleted', () => {
    expect(buildPatch({ a: 1, b: 2 }, { a: 1 })).toEqual([{ op: 'remove', path: '/b' }]);
  });

  it('refuses a returned value that JSON cannot carry', () => {
    expect(() => buildPatch({ a: 1 }, { a: 1n })).toThrow(InvalidPatchError);
    expect(() => buildPatch({ a: 1 }, 'a string')).toThrow(
      'the returned object is not a JSON object',
    );
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => buildPatch({ a: 1 }, cyclic)).toThrow(/not JSON/);
  });

  it('refuses NaN, Infinity and a BigInt inside an added value, naming where', () => {
    const added = (value: unknown) => () =>
      buildPatch({ metadata: {} }, { metadata: { annotations: { a: { b: [1, value] } } } });
    expect(added(Number.NaN)).toThrow('not JSON: NaN at /metadata/annotations/a/b/1');
    expect(added(Infinity)).toThrow('not JSON: Infinity at /metadata/annotations');
    expect(added(2n)).toThrow('not JSON: a BigInt at /metadata/annotations');
    expect(() => buildPatch({ a: 1 }, { a: Number.NaN })).toThrow('not JSON: NaN at /a');
  });

  it('reads the returned object as JSON.stringify does: toJSON, dropped values, nulls in arrays', () => {
    const original = { at: '2026-11-21T00:00:00.000Z', list: [1, null], gone: 'x' };
    const mutated = {
      at: new Date('2026-11-21T00:00:00Z'), // the same string once serialised
      list: [1, undefined, () => 1], // both written as null
      gone: undefined,
      extra: { toJSON: () => 'from toJSON' },
    };
    const operations = buildPatch(original, mutated);
    expect(operations).toEqual(
      expect.arrayContaining([
        { op: 'remove', path: '/gone' },
        { op: 'add', path: '/list/2', value: null },
        { op: 'add', path: '/extra', value: 'from toJSON' },
      ]),
    );
    expect(operations).toHaveLength(3);
  });

  it('refuses a patch that would write __proto__, which JavaScript cannot apply faithfully', () => {
    const mutated = JSON.parse('{"data":{"__proto__":"x"}}') as object;
    expect(() => buildPatch({ data: {} }, mutated)).toThrow(/does not apply.*__proto__/);
  });

  it('turns any JSON object into any other, as the apiserver reads it (property)', () => {
    const object = fc
      .dictionary(fc.string(), fc.jsonValue(), { maxKeys: 6 })
      .filter((value) => !JSON.stringify(value).includes('"__proto__"'));
    fc.assert(
      fc.property(object, object, (original, mutated) => {
        // What travels is JSON text (in which -0 is 0): compare as the apiserver would read it.
        const asJson = <T>(value: T) => JSON.parse(JSON.stringify(value)) as T;
        const operations = asJson(buildPatch(original, mutated));
        expect(asJson(apply(asJson(original), operations))).toEqual(asJson(mutated));
      }),
      { numRuns: 500 },
    );
  });
});

describe('encodePatch', () => {
  it('is the base64 of the JSON operations', () => {
    const operations = [{ op: 'add' as const, path: '/a', value: 1 }];
    expect(JSON.parse(Buffer.from(encodePatch(operations), 'base64').toString())).toEqual(
      operations,
    );
  });
});

describe('patchText', () => {
  const operations: PatchOperation[] = Array.from({ length: 2000 }, (_, i) => ({
    op: 'add',
    path: `/spec/containers/${i}/env`,
    value: [{ name: 'HTTP_PROXY', value: 'http://proxy:3128' }],
  }));

  it('writes a long patch in pieces as JSON.stringify writes it whole', () => {
    expect(patchText(operations, 1024 * 1024)).toBe(JSON.stringify(operations));
  });

  it('stops writing a patch once it passes maxBytes', () => {
    const whole = JSON.stringify(operations).length;
    expect(() => patchText(operations, Math.floor(whole / 4))).toThrow(
      new PatchTooLargeError(
        `its patch of 2000 operations is over ${Math.floor(whole / 4)} bytes (maxPatchBytes)`,
      ),
    );
  });
});
