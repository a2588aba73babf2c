import { describe, expect, it } from 'vitest';
import { SearchQueryError } from '../errors.ts';
import { parseSearchParams } from '../params/parse-search-params.ts';
import { OPERATORS } from '../params/search-params-schema.ts';
import { TEST_SCHEMA } from '../testing/test-schema.ts';
import { validateSearch } from './validate-search.ts';

const validate = (input: unknown) => validateSearch(parseSearchParams(input), { searchable: TEST_SCHEMA });

function problems(input: unknown) {
  try {
    validate(input);
  } catch (e) {
    expect(e).toBeInstanceOf(SearchQueryError);
    return (e as SearchQueryError).errors;
  }
  throw new Error('expected a SearchQueryError');
}

const filterProblems = (filter: unknown) => problems({ query: { filter } });

describe('validateSearch', () => {
  it('builds a typed AST with normalised values', () => {
    const search = validate({
      query: { filter: { eq: { created_at: '2024-02-10T01:01:56+01:00', count: 7 }, gt: { amount: 1.5 } } },
    });
    expect(search.filter).toMatchObject({
      kind: 'AndNode',
      conditions: [
        { kind: 'EqNode', field: { path: 'created_at' }, value: '2024-02-10T00:01:56.000Z' },
        { kind: 'EqNode', field: { path: 'count' }, value: '7' },
        { kind: 'RangeNode', op: 'gt', value: 1.5 },
      ],
    });
    expect(Object.isFrozen(search.filter)).toBe(true);
  });

  it('suggests the nearest field for an unknown one and lists the valid fields', () => {
    const [problem] = filterProblems({ and: [{ eq: { nmae: 'x' } }] });
    expect(problem!.path).toBe('/query/filter/and/0/eq/nmae');
    expect(problem!.message).toContain("unknown field 'nmae'. Did you mean 'name'?");
    expect(problem!.message).toContain('Valid fields: id, name, title');
  });

  it('lists every problem, each with its path', () => {
    const errors = filterProblems({
      eq: { nmae: 'x', amount: 'ten', created_at: 'yesterday' },
      gt: { active: true, count: 1.5 },
      like: { amount: '1%' },
      fuzzy: { title: '!!!' },
      contains: { name: 'x', scores: 'one' },
      in: { count: [1, 'two', 3.5] },
      any: { lines: { eq: { skuu: 'A', qty: 'x' } }, tags: { eq: { a: 1 } } },
      or: [{ eq: { address: 'x' } }, { eq: { lines: 'x' } }],
    });
    expect(errors.map((e) => [e.path, e.message.split(/[;.]/)[0]])).toEqual([
      ['/query/filter/eq/nmae', "unknown field 'nmae'"],
      ['/query/filter/eq/amount', 'expected a number'],
      [
        '/query/filter/eq/created_at',
        'expected a date-time such as 2024-02-10T00:01:56Z, 2024-02-10T01:01:56+01:00 or 2024-02-10',
      ],
      ['/query/filter/gt/active', "gt does not apply to 'active' (boolean)"],
      ['/query/filter/gt/count', 'expected a 64-bit integer'],
      ['/query/filter/in/count/1', 'expected a 64-bit integer'],
      ['/query/filter/in/count/2', 'expected a 64-bit integer'],
      ['/query/filter/like/amount', "like does not apply to 'amount' (number)"],
      ['/query/filter/fuzzy/title', 'fuzzy needs at least one word (letters or digits)'],
      ['/query/filter/contains/name', "contains does not apply to 'name' (string)"],
      ['/query/filter/contains/scores', 'expected a 64-bit integer'],
      ['/query/filter/any/lines/eq/skuu', "unknown field 'skuu'"],
      ['/query/filter/any/lines/eq/qty', 'expected a 64-bit integer'],
      ['/query/filter/any/tags', 'any applies to arrays of objects with declared fields'],
      ['/query/filter/or/0/eq/address', "eq does not apply to 'address' (object) (use a dotted path into it)"],
      ['/query/filter/or/1/eq/lines', "eq does not apply to 'lines' (array) (use contains or any)"],
    ]);
  });

  it('bounds like patterns and fuzzy/keyword texts', () => {
    expect(filterProblems({ like: { name: 'x'.repeat(257) } })).toEqual([
      { path: '/query/filter/like/name', message: 'like patterns have at most 256 characters' },
    ]);
    expect(filterProblems({ keyword: { title: 'w '.repeat(33) } })).toEqual([
      { path: '/query/filter/keyword/title', message: 'keyword takes at most 32 words' },
    ]);
  });

  it('rejects any on an array of scalars and contains on an array of objects', () => {
    expect(filterProblems({ any: { scores: { eq: { x: 1 } } } })[0]!.message).toContain(
      'any applies to arrays of objects',
    );
    expect(filterProblems({ contains: { lines: 'x' } })[0]!.message).toContain('contains applies to arrays of strings');
  });

  it('rejects paths through arrays and into scalars', () => {
    expect(filterProblems({ eq: { 'lines.sku': 'A' } })[0]!.path).toBe('/query/filter/eq/lines.sku');
    expect(filterProblems({ eq: { 'name.first': 'A' } })[0]!.message).toContain("unknown field 'name.first'");
  });

  it('resolves undeclared paths inside objects as untyped values', () => {
    const search = validate({ query: { filter: { eq: { 'meta.size': 5, 'address.extra.x': true } } } });
    expect(search.filter).toMatchObject({
      kind: 'AndNode',
      conditions: [
        { field: { storage: 'flat', physical: 'meta.size' }, value: '5' },
        { field: { storage: 'flat', physical: '_flat.address.extra.x' }, value: 'true' },
      ],
    });
  });

  it('rejects an empty condition and an operator naming no field', () => {
    expect(filterProblems({ and: [{}] })).toEqual([
      { path: '/query/filter/and/0', message: 'a condition needs at least one operator' },
    ]);
    expect(filterProblems({ eq: {} })).toEqual([{ path: '/query/filter/eq', message: 'eq names no field' }]);
  });

  it('checks sort fields', () => {
    const errors = problems({
      query: { sort: [{ nmae: 'asc' }, { tags: 'asc' }, { 'meta.x': 'desc' }, { 'address.city': 'asc' }] },
    });
    expect(errors.map((e) => e.path)).toEqual(['/query/sort/0/nmae', '/query/sort/1/tags', '/query/sort/2/meta.x']);
    expect(errors[0]!.message).toContain("Did you mean 'name'?");
  });

  it('checks projection fields and defaults to every searchable field', () => {
    expect(problems({ query: {}, fields: ['id', 'nam', 'meta.anything'] })).toEqual([
      { path: '/fields/1', message: expect.stringContaining("Did you mean 'name'?") },
    ]);
    expect(validate({ query: {} }).fields).toEqual(Object.keys(TEST_SCHEMA));
  });

  it('accepts eq null and neq null on scalar and untyped paths', () => {
    expect(() =>
      validate({ query: { filter: { eq: { name: null, 'meta.x': null }, neq: { count: null } } } }),
    ).not.toThrow();
  });

  it('turns every operator of the schema into its node (the handlers are a Record over the operators)', () => {
    const sample: Record<string, unknown> = {
      eq: { name: 'a' },
      neq: { name: 'a' },
      gt: { count: 1 },
      gte: { count: 1 },
      lt: { count: 1 },
      lte: { count: 1 },
      in: { name: ['a'] },
      like: { name: 'a%' },
      fuzzy: { title: 'fox' },
      keyword: { title: 'fox' },
      contains: { tags: 'a' },
      any: { lines: { eq: { sku: 'A' } } },
      not: { eq: { name: 'a' } },
      and: [{ eq: { name: 'a' } }, { eq: { count: 1 } }],
      or: [{ eq: { name: 'a' } }, { eq: { count: 1 } }],
    };
    const kinds: Record<string, string> = {
      eq: 'EqNode',
      neq: 'NeqNode',
      gt: 'RangeNode',
      gte: 'RangeNode',
      lt: 'RangeNode',
      lte: 'RangeNode',
      in: 'InNode',
      like: 'LikeNode',
      fuzzy: 'FuzzyNode',
      keyword: 'KeywordNode',
      contains: 'ContainsNode',
      any: 'AnyNode',
      not: 'NotNode',
      and: 'AndNode',
      or: 'OrNode',
    };
    expect(Object.keys(sample).sort()).toEqual([...OPERATORS].sort());
    for (const op of OPERATORS) {
      expect(validate({ query: { filter: { [op]: sample[op] } } }).filter.kind, op).toBe(kinds[op]);
    }
  });
});
