import { describe, expect, it } from 'vitest';
import { parseSearchParams } from '../params/parse-search-params.ts';
import { TEST_SCHEMA } from '../testing/test-schema.ts';
import { validateSearch } from '../validate/validate-search.ts';
import { matches } from './evaluate.ts';
import { referencePage, referenceSearch } from './reference-search.ts';
import { likeMatch } from './text.ts';

const OPTIONS = { searchable: TEST_SCHEMA, recordKey: 'id', connectorId: 'c' };
const test = (filter: unknown, record: Record<string, unknown>) =>
  matches(validateSearch(parseSearchParams({ query: { filter } }), { searchable: TEST_SCHEMA }).filter, record);

describe('reference semantics (docs/search.md)', () => {
  const nul = { id: 'n', amount: null };
  const missing = { id: 'm' };

  it('no comparison matches null or missing', () => {
    for (const r of [nul, missing]) {
      for (const f of [{ eq: { amount: 1 } }, { gt: { amount: 1 } }, { lte: { amount: 1 } }, { in: { amount: [1] } }]) {
        expect(test(f, r)).toBe(false);
      }
    }
  });

  it('neq and not match null and missing (IS DISTINCT FROM)', () => {
    for (const r of [nul, missing]) {
      expect(test({ neq: { amount: 1 } }, r)).toBe(true);
      expect(test({ not: { gt: { amount: 1 } } }, r)).toBe(true);
    }
  });

  it('not of a compound is its complement, nulls included', () => {
    const between = { and: [{ gt: { amount: 0 } }, { lt: { amount: 10 } }] };
    expect(test({ not: between }, missing)).toBe(true);
    expect(test({ not: between }, { id: 'x', amount: 5 })).toBe(false);
    expect(test({ not: { or: [{ eq: { amount: 1 } }, { eq: { name: 'a' } }] } }, missing)).toBe(true);
  });

  it('eq null is "is null or missing"; neq null is "has a value"', () => {
    expect(test({ eq: { amount: null } }, nul)).toBe(true);
    expect(test({ eq: { amount: null } }, { id: 'x', amount: 0 })).toBe(false);
    expect(test({ neq: { amount: null } }, { id: 'x', amount: 0 })).toBe(true);
  });

  it('fuzzy needs every word, with AUTO edit distance and transpositions', () => {
    const r = { id: 'x', title: 'Crème brûlée, quick FOX' };
    expect(test({ fuzzy: { title: 'fxo creme' } }, r)).toBe(true);
    expect(test({ fuzzy: { title: 'brulee qiuck' } }, r)).toBe(true);
    expect(test({ fuzzy: { title: 'fox cat' } }, r)).toBe(false);
    expect(test({ fuzzy: { title: 'ox' } }, r)).toBe(false);
    expect(test({ keyword: { title: 'cat fox' } }, r)).toBe(true);
  });
});

describe('likeMatch', () => {
  it.each([
    ['abc', 'xxABCxx', true],
    ['a%c', 'ABxC', true],
    ['a%c', 'xabc', false],
    ['a_c', 'abc', true],
    ['a_c', 'ac', false],
    ['100\\%', 'is 100% off', true],
    ['100\\%', 'is 100x off', false],
    ['a\\_b', 'a_b', true],
    ['a\\_b', 'axb', false],
    ['%\\\\%', 'x\\y', true],
    ['é', 'CAFÉ', true],
    ['_', '𝔸', true],
  ])('%s ~ %s = %s', (pattern, text, expected) => {
    expect(likeMatch(pattern, text, 'unicode')).toBe(expected);
  });

  it('folds only ASCII letters on untyped paths', () => {
    expect(likeMatch('red', 'RED', 'ascii')).toBe(true);
    expect(likeMatch('é', 'É', 'ascii')).toBe(false);
  });
});

describe('referenceSearch', () => {
  it('sorts missing last either way, ties by key, and pages', () => {
    const records = [{ id: 'b', amount: 1 }, { id: 'a' }, { id: 'c', amount: 1 }, { id: 'd', amount: 2 }];
    const run = (direction: string) =>
      referenceSearch(
        records,
        OPTIONS,
        validateSearch(parseSearchParams({ query: { sort: [{ amount: direction }] } }), { searchable: TEST_SCHEMA }),
      ).map((h) => h.key);
    expect(run('asc')).toEqual(['b', 'c', 'd', 'a']);
    expect(run('desc')).toEqual(['d', 'b', 'c', 'a']);
    const hits = referenceSearch(
      records,
      OPTIONS,
      validateSearch(parseSearchParams({ query: {} }), { searchable: TEST_SCHEMA }),
    );
    expect(referencePage(hits, 2, 'b').hits.map((h) => h.key)).toEqual(['c', 'd']);
  });
});
