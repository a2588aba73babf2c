import { describe, expect, it } from 'vitest';
import { parseSearchParams } from '../params/parse-search-params.ts';
import { TEST_SCHEMA } from '../testing/test-schema.ts';
import { validateSearch } from '../validate/validate-search.ts';
import { searchCapabilities } from './capabilities.ts';

const caps = searchCapabilities(TEST_SCHEMA);
const field = (path: string) => caps.fields.find((f) => f.path === path)!;

/** Whether the validator accepts `filter` (the capabilities must say exactly what it accepts). */
function accepts(filter: unknown): boolean {
  try {
    validateSearch(parseSearchParams({ query: { filter } }), { searchable: TEST_SCHEMA });
    return true;
  } catch {
    return false;
  }
}

const SAMPLE: Record<string, unknown> = {
  string: 'x',
  datetime: '2024-01-01T00:00:00Z',
  integer: 1,
  number: 1.5,
  decimal: '1.50',
  boolean: true,
};

describe('searchCapabilities', () => {
  it('says per path which operators, sorts and aggregations apply', () => {
    expect(field('name').operators).toEqual(expect.arrayContaining(['eq', 'gt', 'like', 'fuzzy', 'keyword']));
    expect(field('active').operators).toEqual(['eq', 'neq', 'in']);
    expect(field('tags').operators).toEqual(['contains']);
    expect(field('lines').operators).toEqual(['any']);
    expect(field('lines').items?.fields.map((f) => f.path)).toContain('sku');
    expect(field('meta').operators).toEqual([]);
    expect(field('address.city').sortable).toBe(true);
    expect(field('price').aggregations).toEqual(['count_by', 'sum', 'avg', 'min', 'max']);
    expect(field('created_at').aggregations).toEqual(['count_by', 'avg', 'min', 'max', 'histogram']);
    expect(field('tags').aggregations).toEqual(['count_by']);
    expect(caps.untypedRoots).toEqual(['meta', 'address']);
  });

  it('agrees with the validator on every scalar path and operator', () => {
    for (const f of caps.fields) {
      const sample = SAMPLE[f.spec.type];
      if (sample === undefined) continue;
      for (const op of ['eq', 'gt', 'like', 'fuzzy'] as const) {
        const value = op === 'like' || op === 'fuzzy' ? 'word' : sample;
        expect(accepts({ [op]: { [f.path]: value } }), `${op} ${f.path}`).toBe(f.operators.includes(op));
      }
    }
  });
});
