import fc from 'fast-check';
import type { GroupOrder, GroupsSpec, HavingSpec, KeySpec, MeasureSpec } from '../oracle/reference-sql.ts';
import { filterArb, sortArb } from './filter-arbitraries.ts';

/**
 * Random SQL over `TEST_SCHEMA` (table `things`) for the differential test (tests only): the filters and sorts of
 * the search differential (filter-arbitraries.ts), written as SQL, with random GROUP BY, aggregates, HAVING,
 * ORDER BY and LIMIT. Each case keeps its structured form for the reference evaluator.
 */
const pick = <T>(values: readonly T[]) => fc.constantFrom(...values);

export type SqlCase = {
  readonly filter: Record<string, unknown> | undefined;
  readonly pageSize: number;
} & (
  | {
      readonly kind: 'rows';
      readonly columns: readonly string[] | '*';
      readonly sort: readonly Record<string, string>[];
      readonly limit?: number;
    }
  | ({ readonly kind: 'groups' } & GroupsSpec)
);

const quote = (path: string) => `"${path.replaceAll('"', '""')}"`;
const text = (s: string) => `'${s.replaceAll("'", "''")}'`;

/** A JSON value as a SQL literal: numbers as plain digits (the grammar has no exponents), strings quoted. */
function literal(v: unknown): string {
  if (typeof v === 'string') return text(v);
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) >= 1e21 ? BigInt(v).toString() : String(v);
  throw new Error(`no literal for ${String(v)}`);
}

const COMPARE: Readonly<Record<string, string>> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };

/** A search filter as a WHERE condition, or undefined when it uses what SQL's subset lacks (`contains`, `any`). */
export function filterToSql(filter: Record<string, unknown>, ilike: boolean): string | undefined {
  const parts: (string | undefined)[] = [];
  for (const [op, arg] of Object.entries(filter)) {
    if (op === 'and' || op === 'or') {
      const inner = (arg as Record<string, unknown>[]).map((c) => filterToSql(c, ilike));
      parts.push(inner.some((c) => c === undefined) ? undefined : `(${inner.join(` ${op.toUpperCase()} `)})`);
      continue;
    }
    if (op === 'not') {
      const inner = filterToSql(arg as Record<string, unknown>, ilike);
      parts.push(inner === undefined ? undefined : `NOT (${inner})`);
      continue;
    }
    for (const [field, value] of Object.entries(arg as Record<string, unknown>)) {
      const col = quote(field);
      if (op === 'eq') parts.push(value === null ? `${col} IS NULL` : `${col} = ${literal(value)}`);
      else if (op === 'neq') parts.push(value === null ? `${col} IS NOT NULL` : `${col} <> ${literal(value)}`);
      else if (COMPARE[op]) parts.push(`${col} ${COMPARE[op]} ${literal(value)}`);
      else if (op === 'in') parts.push(`${col} IN (${(value as unknown[]).map(literal).join(', ')})`);
      else if (op === 'like') parts.push(`${col} ${ilike ? 'ILIKE' : 'LIKE'} ${text(String(value))}`);
      else if (op === 'fuzzy' || op === 'keyword') parts.push(`${op}(${col}, ${text(String(value))})`);
      else parts.push(undefined);
    }
  }
  return parts.some((p) => p === undefined) ? undefined : parts.join(' AND ');
}

const sqlFilter = fc.option(
  filterArb.filter((f) => filterToSql(f, false) !== undefined),
  { nil: undefined },
);

const ROW_COLUMNS = ['id', 'name', 'created_at', 'address.city', 'count', 'price', 'amount', 'active', 'tags'];
const rowsCase = fc.record({
  kind: fc.constant('rows' as const),
  filter: sqlFilter,
  columns: fc.oneof({ weight: 4, arbitrary: fc.subarray(ROW_COLUMNS, { minLength: 1 }) }, fc.constant('*' as const)),
  sort: sortArb,
  limit: fc.option(fc.integer({ min: 0, max: 12 }), { nil: undefined }),
  pageSize: fc.integer({ min: 1, max: 6 }),
});

const KEY_FIELDS = ['name', 'id', 'created_at', 'amount', 'count', 'price', 'active', 'address.city'];
const keyArb: fc.Arbitrary<KeySpec> = fc.oneof(
  { weight: 3, arbitrary: pick(KEY_FIELDS).map((path) => ({ path })) },
  pick(['hour', 'day', 'week', 'month'] as const).map((trunc) => ({ path: 'created_at', trunc })),
);
const measureArb: fc.Arbitrary<MeasureSpec> = fc.oneof(
  fc.constant({ fn: 'count_all' as const }),
  pick(['name', 'price', 'created_at', 'active', 'count']).map((path) => ({ fn: 'count' as const, path })),
  pick(['name', 'count', 'price', 'active', 'created_at']).map((path) => ({ fn: 'count_distinct' as const, path })),
  pick(['sum', 'avg'] as const).map((fn) => ({ fn, path: 'price' })),
  fc
    .tuple(pick(['min', 'max'] as const), pick(['price', 'count', 'created_at', 'amount']))
    .map(([fn, path]) => ({ fn, path })),
);

/** HAVING over counts and decimal amounts (measures whose values compare exactly). */
function havingArb(measures: readonly MeasureSpec[]): fc.Arbitrary<HavingSpec | undefined> {
  const usable = measures.flatMap((m, i) =>
    m.fn === 'count_all' || m.fn === 'count' || m.fn === 'count_distinct'
      ? [{ i, values: ['0', '1', '2', '3'] }]
      : m.path === 'price'
        ? [{ i, values: ['0', '0.1', '10', '-0.5', '976.08'] }]
        : [],
  );
  if (usable.length === 0) return fc.constant(undefined);
  const leaf = pick(usable).chain(({ i, values }) =>
    fc.record({ measure: fc.constant(i), op: pick(['=', '<>', '<', '<=', '>', '>='] as const), value: pick(values) }),
  );
  return fc.option(
    fc.oneof(
      { weight: 3, arbitrary: leaf },
      fc.array(leaf, { minLength: 2, maxLength: 2 }).map((all) => ({ all })),
      fc.array(leaf, { minLength: 2, maxLength: 2 }).map((any) => ({ any })),
    ),
    { nil: undefined },
  );
}

const groupsCase = fc
  .record({
    keys: fc.uniqueArray(keyArb, { maxLength: 2, selector: (k) => `${k.path}:${k.trunc ?? ''}` }),
    measures: fc.array(measureArb, { minLength: 1, maxLength: 3 }),
  })
  .chain(({ keys, measures }) => {
    const orderItem: fc.Arbitrary<GroupOrder> = fc.oneof(
      ...(keys.length > 0
        ? [
            fc
              .tuple(fc.nat({ max: keys.length - 1 }), pick(['asc', 'desc'] as const))
              .map(([key, dir]) => ({ key, dir })),
          ]
        : []),
      fc
        .tuple(fc.nat({ max: measures.length - 1 }), pick(['asc', 'desc'] as const))
        .map(([measure, dir]) => ({ measure, dir })),
    );
    return fc.record({
      kind: fc.constant('groups' as const),
      filter: sqlFilter,
      keys: fc.constant(keys),
      measures: fc.constant(measures),
      // The grammar takes HAVING only after GROUP BY.
      having: keys.length > 0 ? havingArb(measures) : fc.constant(undefined),
      order: fc.uniqueArray(orderItem, { maxLength: 2, selector: (o) => `${o.key}:${o.measure}` }),
      limit: fc.option(fc.integer({ min: 0, max: 12 }), { nil: undefined }),
      pageSize: fc.integer({ min: 1, max: 5 }),
    });
  });

export const sqlCaseArb: fc.Arbitrary<SqlCase> = fc.oneof(rowsCase, groupsCase);

function measureSql(m: MeasureSpec): string {
  if (m.fn === 'count_all') return 'COUNT(*)';
  if (m.fn === 'count_distinct') return `COUNT(DISTINCT ${quote(m.path)})`;
  return `${m.fn.toUpperCase()}(${quote(m.path)})`;
}

function havingSql(h: HavingSpec, measures: readonly MeasureSpec[]): string {
  if ('all' in h) return `(${h.all.map((x) => havingSql(x, measures)).join(' AND ')})`;
  if ('any' in h) return `(${h.any.map((x) => havingSql(x, measures)).join(' OR ')})`;
  return `${measureSql(measures[h.measure]!)} ${h.op} ${h.value}`;
}

/** The case as SQL text; `variant` picks among equivalent spellings (aliases, positions, ILIKE). */
export function caseToSql(c: SqlCase, variant: number): string {
  const where = c.filter ? ` WHERE ${filterToSql(c.filter, variant % 2 === 1)}` : '';
  const limit = c.limit === undefined ? '' : ` LIMIT ${c.limit}`;
  if (c.kind === 'rows') {
    const columns = c.columns === '*' ? '*' : c.columns.map(quote).join(', ');
    const order =
      c.sort.length === 0
        ? ''
        : ` ORDER BY ${c.sort.map((s) => Object.entries(s).map(([f, d]) => `${quote(f)} ${d.toUpperCase()}`)[0]).join(', ')}`;
    return `SELECT ${columns} FROM things${where}${order}${limit}`;
  }
  const keyExpr = (k: KeySpec) => (k.trunc ? `DATE_TRUNC('${k.trunc}', ${quote(k.path)})` : quote(k.path));
  const select = [
    ...c.keys.map((k, i) => `${keyExpr(k)} AS k${i}`),
    ...c.measures.map((m, i) => `${measureSql(m)} AS m${i}`),
  ];
  const group =
    c.keys.length === 0
      ? ''
      : ` GROUP BY ${c.keys.map((k, i) => (variant % 3 === 0 ? keyExpr(k) : variant % 3 === 1 ? `k${i}` : String(i + 1))).join(', ')}`;
  const having = c.having ? ` HAVING ${havingSql(c.having, c.measures)}` : '';
  const orderItem = (o: GroupOrder) => {
    const target =
      o.key !== undefined
        ? variant % 2 === 0
          ? `k${o.key}`
          : keyExpr(c.keys[o.key]!)
        : variant % 2 === 0
          ? `m${o.measure}`
          : measureSql(c.measures[o.measure!]!);
    return `${target} ${o.dir.toUpperCase()}`;
  };
  const order = c.order.length === 0 ? '' : ` ORDER BY ${c.order.map(orderItem).join(', ')}`;
  return `SELECT ${select.join(', ')} FROM things${where}${group}${having}${order}${limit}`;
}
