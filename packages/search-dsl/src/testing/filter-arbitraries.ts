import fc from 'fast-check';
import {
  cityValue,
  colorValue,
  dateQueryValue,
  decimalValue,
  fuzzyText,
  integerValue,
  LIKE_PATTERNS,
  numberValue,
  stringValue,
  typoWord,
} from './arbitraries.ts';

/** Random valid filters and sorts over `TEST_SCHEMA` (tests only). */
const pick = <T>(values: readonly T[]) => fc.constantFrom(...values);
const op = (name: string, field: string, value: fc.Arbitrary<unknown>) =>
  value.map((v) => ({ [name]: { [field]: v } }));
const eqLike = (field: string, value: fc.Arbitrary<unknown>) =>
  fc.oneof(
    op('eq', field, value),
    op('neq', field, value),
    op('eq', field, fc.constant(null)),
    op('neq', field, fc.constant(null)),
    op('in', field, fc.array(value, { minLength: 1, maxLength: 3 })),
  );
const ranges = (field: string, value: fc.Arbitrary<unknown>) =>
  fc.tuple(pick(['gt', 'gte', 'lt', 'lte']), value).map(([o, v]) => ({ [o]: { [field]: v } }));

const leaf: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  eqLike('name', stringValue),
  ranges('name', stringValue),
  op('like', 'name', pick(LIKE_PATTERNS)),
  eqLike('id', pick(['a', 'b', 'B', '0', 'é', '𝔸'])),
  ranges('id', pick(['a', 'b', '0', 'Ａ', '𝔸'])),
  op('fuzzy', 'title', fuzzyText),
  op(
    'keyword',
    'title',
    fc.array(typoWord, { minLength: 1, maxLength: 3 }).map((w) => w.join(', ')),
  ),
  op('like', 'title', pick(['%fox%', 'apple%', '%crème%', '%CREME%', '_pple%'])),
  eqLike('created_at', dateQueryValue),
  ranges('created_at', dateQueryValue),
  eqLike('amount', numberValue),
  ranges('amount', numberValue),
  eqLike('count', integerValue),
  eqLike('price', decimalValue),
  ranges('price', decimalValue),
  ranges('count', integerValue),
  eqLike('active', fc.boolean()),
  op('contains', 'tags', stringValue),
  op('contains', 'scores', integerValue),
  eqLike('address.city', cityValue),
  op('like', 'address.city', pick(['par%', 'ZÜR%', '%i%'])),
  ranges('address.geo.lat', numberValue),
  eqLike('address.extra', colorValue),
  eqLike('meta.color', fc.oneof(colorValue, pick<unknown>([5, true, 'true']))),
  op('like', 'meta.color', pick(['R%', '%e%', 'é', 'É'])),
  ranges('meta.size', pick(['5', '10', 'b'])),
  eqLike('meta.list.k', colorValue),
  eqLike('meta.nested.deep', colorValue),
);

const lineLeaf = fc.oneof(
  eqLike('sku', pick(['A', 'B', 'a'])),
  ranges('qty', pick([1, 2, 5])),
  ranges('at', dateQueryValue),
  eqLike('at', dateQueryValue),
  eqLike('attrs.color', colorValue),
);
const lineCondition = fc.oneof(
  { weight: 3, arbitrary: lineLeaf },
  fc.tuple(lineLeaf, lineLeaf).map(([a, b]) => ({ ...b, ...a })),
  lineLeaf.map((c) => ({ not: c })),
  fc.array(lineLeaf, { minLength: 1, maxLength: 2 }).map((cs) => ({ or: cs })),
);

export const filterArb: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{ node: Record<string, unknown> }>((tie) => ({
  node: fc.oneof(
    { maxDepth: 3, depthIdentifier: 'filter' },
    { weight: 5, arbitrary: leaf },
    lineCondition.map((c) => ({ any: { lines: c } })),
    tie('node').map((c) => ({ not: c })),
    fc.array(tie('node'), { minLength: 1, maxLength: 3 }).map((cs) => ({ and: cs })),
    fc.array(tie('node'), { minLength: 1, maxLength: 3 }).map((cs) => ({ or: cs })),
    // Several operators in one object are ANDed.
    fc.tuple(leaf, leaf).map(([a, b]) => ({ ...b, ...a })),
  ),
})).node;

/** Top-level scalar fields: sortable, and each takes count_by. */
const ROOT_SCALARS = ['name', 'id', 'title', 'created_at', 'amount', 'count', 'price', 'active'];
const SORTABLE = [...ROOT_SCALARS, 'address.city', 'address.geo.lat'];
export const sortArb = fc.array(
  fc.tuple(pick(SORTABLE), pick(['asc', 'desc'] as const)).map(([f, d]) => ({ [f]: d })),
  { maxLength: 3 },
);

/** Random named aggregations over `TEST_SCHEMA` (tests only). */
const aggregationArb = fc.oneof(
  fc
    .tuple(
      pick([...ROOT_SCALARS, 'tags', 'scores', 'address.city']),
      fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
    )
    .map(([field, size]) => ({ count_by: field, ...(size === undefined ? {} : { size }) })),
  fc.tuple(pick(['sum', 'avg', 'min', 'max']), pick(['amount', 'count', 'price', 'address.geo.lat'])).map(([k, f]) => ({
    [k]: f,
  })),
  fc.tuple(pick(['avg', 'min', 'max']), fc.constant('created_at')).map(([k, f]) => ({ [k]: f })),
  pick(['day', 'week', 'month']).map((interval) => ({ histogram: 'created_at', interval })),
);
export const aggregateArb = fc.dictionary(pick(['a', 'b', 'c', 'd']), aggregationArb, { minKeys: 1, maxKeys: 4 });
