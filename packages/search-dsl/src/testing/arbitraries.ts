import fc from 'fast-check';

/**
 * fast-check generators for the differential test (tests only). Values come from small pools so that filters
 * hit records and sort keys tie often. `title` (the fuzzy/keyword field) is made of vocabulary words with case
 * and accent variants and separators that the standard tokenizer always splits on, so that analysis is
 * well-defined (see text/words.ts); other strings carry the awkward characters.
 */
const STRINGS = [
  'a',
  'A',
  'ab',
  'Ab',
  'b',
  'é',
  'É',
  'ü',
  'ß',
  '𝔸',
  'Ａ',
  'x%y',
  'x_y',
  'x\\y',
  'a*b?',
  'a.b',
  'a b',
  '',
  ' ',
  'zz',
];
const VOCAB = [
  'apple',
  'banana',
  'cherry',
  'crème',
  'brûlée',
  'fox',
  'ox',
  'quick',
  'brown',
  'élan',
  'naïve',
  'jumps',
  'zebra',
  'a',
  'it',
];
const SEPARATORS = [' ', ', ', ' - ', '! ', ' (', ') ', '/'];
const MILLIS = [
  Date.UTC(2024, 1, 10),
  Date.UTC(2024, 1, 10, 0, 1, 56),
  Date.UTC(2024, 1, 9, 23),
  Date.UTC(1999, 11, 31, 23, 59, 59, 500),
];
/** Amounts as upstreams send them, plus the awkward ones: too precise, out of range, numbers, not numeric. */
const DECIMALS: unknown[] = [
  '8387.12',
  '976.08',
  '0.1',
  '0.10',
  '0.2',
  0.3,
  '-0.5',
  '-1.25',
  '0',
  '-0.00',
  '10',
  '9.999999',
  '1.0000001',
  '9223372036854.775807',
  '9223372036854.775806',
  '-9223372036854.775806',
  '99999999999999',
  '1e3',
  'abc',
];
const NUMBERS: unknown[] = [0, 1, -1, 2.5, -2.5, 10, '10', '2.5', 1e21, 'abc'];
const INTEGERS: unknown[] = [0, 1, -1, 7, '7', '9007199254740993', '-9007199254740993', 2.5, 'x'];
export const LIKE_PATTERNS = [
  'a',
  'A%',
  '%b',
  '_',
  '__',
  '%\\%%',
  'x\\_y',
  '%\\\\%',
  'a*',
  '%?',
  'é',
  'É%',
  '%𝔸',
  'Ａ',
  'a.b',
  '% %',
  'a_b',
  'ß',
];

const maybe = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof(
    { weight: 6, arbitrary: arb.map((v): T | null | undefined => v) },
    fc.constant(null),
    fc.constant(undefined),
  );
const pick = <T>(values: readonly T[]) => fc.constantFrom(...values);

export const stringValue = pick(STRINGS);
export const decimalValue = pick<unknown>(['8387.12', '976.08', '0.1', 0.3, '-0.5', '-1.25', '0', '10.000', 9.999999]);
export const numberValue = pick([0, 1, -1, 2.5, -2.5, 10, 1e21]);
export const integerValue = pick([0, 1, -1, 7, '9007199254740993', -9007199254740992]);
export const cityValue = pick(['Paris', 'paris', 'PARIS', 'Lyon', 'Zürich', 'zürich']);
export const colorValue = pick(['red', 'Red', 'RED', 'blue', 'é', 'É']);

/** An instant in one of the upstream formats the catalog promises to compare as instants. */
export const dateText = fc
  .tuple(pick(MILLIS), pick(['Z', '+0000', '+01:00', '-05:30', 'date', 'frac', 'bad']))
  .map(([ms, f]) => {
    const iso = new Date(ms).toISOString();
    if (f === 'Z') return iso.replace('.000Z', 'Z');
    if (f === 'frac') return iso.replace('Z', '123+00:00');
    if (f === 'date') return iso.slice(0, 10);
    if (f === 'bad') return 'soon';
    const sign = f[0] === '-' ? -1 : 1;
    const minutes = sign * (Number(f.slice(1, 3)) * 60 + Number(f.slice(-2)));
    const local = new Date(ms + minutes * 60_000).toISOString().slice(0, 19);
    return local + f;
  });
export const dateQueryValue = fc.oneof(
  dateText.filter((d) => d !== 'soon'),
  pick(['2024-02-10', '2024-02-10T00:00:00.001Z']),
);

export const titleWord = fc.tuple(pick(VOCAB), pick(['same', 'upper', 'capital', 'plain'])).map(([w, c]) => {
  if (c === 'upper') return w.toUpperCase();
  if (c === 'capital') return w[0]!.toUpperCase() + w.slice(1);
  if (c === 'plain') return w.normalize('NFD').replace(/\p{M}/gu, '');
  return w;
});
export const titleText = fc
  .array(fc.tuple(titleWord, pick(SEPARATORS)), { minLength: 1, maxLength: 5 })
  .map((parts) => parts.map(([w, s], i) => (i === 0 ? w : s + w)).join(''));

/** A query word: a vocabulary word, maybe with one or two typos (swap, drop, replace, insert). */
export const typoWord = fc
  .tuple(
    titleWord,
    fc.array(fc.tuple(pick(['swap', 'drop', 'replace', 'insert']), fc.nat(), pick(['x', 'e', 'o'])), { maxLength: 2 }),
  )
  .map(([word, edits]) => {
    let chars = [...word];
    for (const [kind, at, c] of edits) {
      const i = chars.length === 0 ? 0 : at % chars.length;
      if (kind === 'swap' && i + 1 < chars.length) [chars[i], chars[i + 1]] = [chars[i + 1]!, chars[i]!];
      else if (kind === 'drop' && chars.length > 1) chars = chars.filter((_, j) => j !== i);
      else if (kind === 'replace') chars[i] = c;
      else if (kind === 'insert') chars.splice(i, 0, c);
    }
    return chars.join('');
  });
export const fuzzyText = fc.oneof(
  { weight: 3, arbitrary: typoWord },
  fc.array(typoWord, { minLength: 2, maxLength: 3 }).map((ws) => ws.join(' ')),
);

const metaValue = fc.oneof(pick<unknown>(['red', 'Red', 5, '5', true, 'true', null]), colorValue);
const meta = fc.record(
  {
    color: metaValue,
    size: pick<unknown>([5, '5', 10, 'big', null]),
    nested: fc.record({ deep: metaValue }, { requiredKeys: [] }),
    list: fc.array(fc.record({ k: metaValue }, { requiredKeys: [] }), { maxLength: 3 }),
  },
  { requiredKeys: [] },
);

const line = fc.record(
  {
    sku: maybe(pick(['A', 'B', 'a'])),
    qty: maybe(pick<unknown>([1, 2, 5, '5'])),
    at: maybe(dateText),
    attrs: maybe(fc.record({ color: metaValue }, { requiredKeys: [] })),
  },
  { requiredKeys: [] },
);

/** One upstream record of `TEST_SCHEMA`, without its key. */
export const recordBody = fc.record(
  {
    name: maybe(stringValue),
    title: maybe(titleText),
    created_at: maybe(dateText),
    amount: maybe(pick(NUMBERS)),
    count: maybe(pick(INTEGERS)),
    price: maybe(pick(DECIMALS)),
    active: maybe(fc.oneof(fc.boolean(), pick(['true', 'yes']))),
    tags: maybe(fc.array(stringValue, { maxLength: 3 })),
    scores: maybe(fc.array(integerValue, { maxLength: 3 })),
    meta: maybe(fc.oneof({ weight: 5, arbitrary: meta }, pick<unknown>(['text', [1, 2]]))),
    address: maybe(
      fc.record(
        {
          city: maybe(cityValue),
          zip: maybe(pick(['75001', 75001, '8000'])),
          geo: maybe(fc.record({ lat: maybe(numberValue) })),
          extra: maybe(colorValue),
        },
        { requiredKeys: [] },
      ),
    ),
    lines: maybe(fc.array(fc.oneof({ weight: 5, arbitrary: line }, pick<unknown>(['junk', null])), { maxLength: 3 })),
  },
  { requiredKeys: [] },
);

const KEY_CHARS = ['a', 'b', 'B', '0', '9', 'é', '𝔸', 'Ａ', '-', ' '];
export const recordKeys = fc.uniqueArray(
  fc.array(pick(KEY_CHARS), { minLength: 1, maxLength: 3 }).map((cs) => cs.join('')),
  { maxLength: 40 },
);

/** Records with unique keys, ready to index. */
export const records = recordKeys.chain((keys) =>
  fc.tuple(...keys.map((id) => recordBody.map((body) => ({ id, ...dropUndefined(body) })))),
);

function dropUndefined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
