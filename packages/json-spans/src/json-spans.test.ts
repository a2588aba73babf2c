import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as spans from './json-spans.ts';

/** An object's members, each key with its value's span, read with spans.walkObject. */
function members(bytes: Buffer, start: number): { key: string; span: spans.JsonSpan }[] {
  const found: { key: string; span: spans.JsonSpan }[] = [];
  spans.walkObject(bytes, start, (keyStart, keyEnd, valueStart) => {
    const end = spans.valueEnd(bytes, valueStart);
    found.push({ key: spans.keyText(bytes, keyStart, keyEnd), span: { start: valueStart, end } });
    return end;
  });
  return found;
}

function walkAll(bytes: Buffer, start: number): number {
  if (bytes[start] === 0x7b)
    return spans.walkObject(bytes, start, (_keyStart, _keyEnd, valueStart) => walkAll(bytes, valueStart));
  if (bytes[start] === 0x5b) return spans.walkArray(bytes, start, (valueStart) => walkAll(bytes, valueStart));
  return spans.valueEnd(bytes, start);
}

function elements(bytes: Buffer, start: number): spans.JsonSpan[] {
  const found: spans.JsonSpan[] = [];
  spans.walkArray(bytes, start, (valueStart) => {
    const end = spans.valueEnd(bytes, valueStart);
    found.push({ start: valueStart, end });
    return end;
  });
  return found;
}

// Strings with quotes, backslashes (runs of them before a quote), dots, control characters and non-ASCII text.
const text = fc.oneof(
  fc.string({ unit: fc.constantFrom('"', '\\', '.', 'a', '\n', '\u0001', 'é', '€', '😀', '}', ']', ',', ':') }),
  fc.string({ unit: 'grapheme' }),
);
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(null, true, false),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    text,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(text, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** As the engine writes it (compact) and as a person might (indented). */
const layouts = (value: unknown) => [JSON.stringify(value), JSON.stringify(value, null, 2)];

describe('json spans', () => {
  it('finds where any value ends, its members and its elements, whatever the layout', () => {
    fc.assert(
      fc.property(json, (generated) => {
        // As JSON has it (-0 is written 0).
        const value = JSON.parse(JSON.stringify(generated)) as unknown;
        for (const layout of layouts(value)) {
          const bytes = Buffer.from(` ${layout}`);
          const start = spans.skipWhitespace(bytes, 0);
          expect(spans.valueEnd(bytes, start)).toBe(bytes.length);
          expect(spans.parseSpan(bytes, { start, end: bytes.length })).toEqual(value);
          if (Array.isArray(value)) {
            expect(elements(bytes, start).map((span) => spans.parseSpan(bytes, span))).toEqual(value);
          } else if (value !== null && typeof value === 'object') {
            const found = members(bytes, start);
            expect(found.map((member) => member.key)).toEqual(Object.keys(value));
            expect(Object.fromEntries(found.map(({ key, span }) => [key, spans.parseSpan(bytes, span)]))).toEqual(
              value,
            );
          }
          // Walking into every object and array instead of skipping it ends at the same byte.
          expect(walkAll(bytes, start)).toBe(bytes.length);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('ends an object in one loop when every key is plain, and says -1 when a key is empty or has a dot or an escape', () => {
    fc.assert(
      fc.property(fc.dictionary(text, json, { maxKeys: 5 }), (generated) => {
        const value = JSON.parse(JSON.stringify(generated)) as Record<string, unknown>;
        // Only the object's own keys count: a nested key with a dot is part of a value.
        const plain = Object.keys(value).every((key) => key !== '' && !/[.\\]/.test(JSON.stringify(key)));
        for (const layout of layouts(value)) {
          const bytes = Buffer.from(`${layout},`);
          expect(spans.plainKeysObjectEnd(bytes, 0)).toBe(plain ? bytes.length - 1 : -1);
        }
      }),
      { numRuns: 500 },
    );
    expect(spans.plainKeysObjectEnd(Buffer.from('{"a":{"b.c":1},"d":"e.f"}'), 0)).toBe(25);
    expect(spans.plainKeysObjectEnd(Buffer.from('{"a":1,"b.c":2}'), 0)).toBe(-1);
    expect(spans.plainKeysObjectEnd(Buffer.from('{"\\u0069d":1}'), 0)).toBe(-1);
    expect(spans.plainKeysObjectEnd(Buffer.from('{"a":1,"":2}'), 0)).toBe(-1);
  });

  it('compares a key as written with a name, without reading it', () => {
    const bytes = Buffer.from('{"hits":1,"hit":2,"h\\u0069ts":3}');
    const matches: boolean[] = [];
    spans.walkObject(bytes, 0, (keyStart, keyEnd, valueStart) => {
      matches.push(spans.keyEquals(bytes, keyStart, keyEnd, 'hits'));
      return spans.valueEnd(bytes, valueStart);
    });
    expect(matches).toEqual([true, false, false]);
  });

  it('throws on what is not JSON instead of reading past it', () => {
    for (const broken of ['{"a":1', '{"a" 1}', '{"a":1 "b":2}', '["a"', '"open', '{a:1}', '[1 2]', '{"a":}']) {
      const bytes = Buffer.from(broken);
      expect(() => {
        const start = spans.skipWhitespace(bytes, 0);
        if (bytes[start] === 0x7b) members(bytes, start);
        else if (bytes[start] === 0x5b) elements(bytes, start);
        else spans.valueEnd(bytes, start);
      }, broken).toThrow(/malformed JSON/);
    }
  });
});
