import { describe, expect, it } from 'vitest';
import { SearchQueryError } from '../errors.ts';
import { parseSearchParams } from '../params/parse-search-params.ts';
import { TEST_SCHEMA } from '../testing/test-schema.ts';
import { validateSearch } from './validate-search.ts';

const validate = (aggregate: unknown, extra: Record<string, unknown> = {}) =>
  validateSearch(parseSearchParams({ query: {}, aggregate, ...extra }), { searchable: TEST_SCHEMA });

function problems(aggregate: unknown) {
  try {
    validate(aggregate);
  } catch (e) {
    expect(e).toBeInstanceOf(SearchQueryError);
    expect((e as SearchQueryError).code).toBe('invalid_filter');
    return (e as SearchQueryError).errors;
  }
  throw new Error('expected a SearchQueryError');
}

describe('params.aggregate', () => {
  it('builds one node per named aggregation, in request order, with the field type', () => {
    const search = validate(
      {
        by_status: { count_by: 'name', size: 3 },
        revenue: { sum: 'price' },
        mean: { avg: 'amount' },
        first: { min: 'created_at' },
        last: { max: 'count' },
        daily: { histogram: 'created_at', interval: 'day' },
        tags: { count_by: 'tags' },
      },
      { limit: 0 },
    );
    expect(search.limit).toBe(0);
    expect(search.aggregations.map((n) => [n.kind, n.name, n.field.path, n.type])).toEqual([
      ['CountByAgg', 'by_status', 'name', 'string'],
      ['SumAgg', 'revenue', 'price', 'decimal'],
      ['AvgAgg', 'mean', 'amount', 'number'],
      ['MinAgg', 'first', 'created_at', 'datetime'],
      ['MaxAgg', 'last', 'count', 'integer'],
      ['HistogramAgg', 'daily', 'created_at', 'datetime'],
      ['CountByAgg', 'tags', 'tags', 'string'],
    ]);
    expect(search.aggregations[0]).toMatchObject({ size: 3 });
    expect(search.aggregations[6]).toMatchObject({ size: 10 });
    expect(search.aggregations[5]).toMatchObject({ interval: 'day' });
  });

  it('answers an unknown field with its path and a "did you mean"', () => {
    expect(problems({ revenue: { sum: 'prcie' } })).toEqual([
      {
        path: '/aggregate/revenue/sum',
        message: expect.stringContaining("unknown field 'prcie'. Did you mean 'price'?"),
      },
    ]);
  });

  it('answers sum on a text field naming the types it takes', () => {
    expect(problems({ s: { sum: 'name' } })).toEqual([
      {
        path: '/aggregate/s/sum',
        message: "sum does not apply to 'name' (string); it takes fields of type integer, number, decimal",
      },
    ]);
  });

  it('checks every aggregation against the types it takes', () => {
    const errors = problems({
      h: { histogram: 'amount', interval: 'week' },
      m: { min: 'active' },
      a: { avg: 'scores' },
      f: { count_by: 'meta.color' },
      o: { count_by: 'address' },
      l: { count_by: 'lines' },
    });
    expect(errors.map((e) => [e.path, e.message.split(';')[0]])).toEqual([
      ['/aggregate/h/histogram', "histogram does not apply to 'amount' (number)"],
      ['/aggregate/m/min', "min does not apply to 'active' (boolean)"],
      ['/aggregate/a/avg', "avg does not apply to 'scores' (an array of integer)"],
      ['/aggregate/f/count_by', "count_by does not apply to 'meta.color' (a value inside an untyped object)"],
      ['/aggregate/o/count_by', "count_by does not apply to 'address' (object)"],
      ['/aggregate/l/count_by', "count_by does not apply to 'lines' (an array)"],
    ]);
  });

  it('reports shape problems at their paths', () => {
    const shape = (aggregate: unknown) => {
      try {
        parseSearchParams({ query: {}, aggregate });
      } catch (e) {
        return (e as SearchQueryError).errors;
      }
      throw new Error('expected a SearchQueryError');
    };
    expect(shape({ a: { count_by: 'name', size: 0 } })).toEqual([
      { path: '/aggregate/a/size', message: 'size is an integer from 1 to 1000' },
    ]);
    expect(shape({ a: { count_by: 'name', size: 1001 } })[0]!.path).toBe('/aggregate/a/size');
    expect(shape({ a: { histogram: 'created_at' } })).toEqual([
      { path: '/aggregate/a/interval', message: 'is required' },
    ]);
    expect(shape({ a: { histogram: 'created_at', interval: 'year' } })[0]!.path).toBe('/aggregate/a/interval');
    expect(shape({ a: { sum: 5 } })).toEqual([
      { path: '/aggregate/a/sum', message: 'expected a string, got a number' },
    ]);
    expect(shape({ a: { sum: 'x', max: 'y' } })).toEqual([
      { path: '/aggregate/a', message: 'an aggregation has exactly one of count_by, sum, avg, min, max, histogram' },
    ]);
    expect(shape({ a: { total: 'x' } })[0]!.path).toBe('/aggregate/a');
    expect(shape({ a: { sum: 'x', size: 2 } })).toEqual([
      { path: '/aggregate/a/size', message: "unknown property 'size'" },
    ]);
    expect(shape({ 'a b': { sum: 'x' } })[0]!.path).toBe('/aggregate/a b');
    expect(shape(Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`a${i}`, { sum: 'x' }])))).toEqual([
      { path: '/aggregate', message: 'at most 16 aggregations' },
    ]);
  });
});
