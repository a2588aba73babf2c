import type { Expr, SelectFromStatement } from 'pgsql-ast-parser';
import {
  type AggKind,
  type AggNode,
  AvgAgg,
  CountAgg,
  DistinctAgg,
  MaxAgg,
  MinAgg,
  SumAgg,
} from '../ast/aggregations.ts';
import { DISTINCT_PRECISION } from '../compile/opensearch/compile-aggregations.ts';
import { resolveField, rootScope } from '../fields/field-resolution.ts';
import { checkValue, type ValueType } from '../validate/check-value.ts';
import { aggregatable } from '../validate/validate-aggregations.ts';
import type { BindContext } from './bind-sql.ts';
import { type Classified, classify } from './classify-expr.ts';
import { literalOf, literalValue } from './sql-literals.ts';
import {
  COMPARISONS,
  type Comparison,
  type Condition,
  FLIPPED,
  type GroupKey,
  type GroupsQuery,
  type Measure,
  type Operand,
  type OrderKey,
  type SqlColumn,
} from './sql-tree.ts';

type Bound = Pick<GroupsQuery, 'keys' | 'measures' | 'having' | 'order' | 'columns'>;

const KIND_OF: Readonly<Record<string, AggKind>> = {
  count: 'CountAgg',
  sum: 'SumAgg',
  avg: 'AvgAgg',
  min: 'MinAgg',
  max: 'MaxAgg',
};
const CREATE = { CountAgg, DistinctAgg, SumAgg, AvgAgg, MinAgg, MaxAgg } as const;

/**
 * Stage 2b of SQL: GROUP BY, the aggregates, HAVING and ORDER BY of a grouping query. Keys are scalar columns or
 * DATE_TRUNC of a date-time column; aggregates are the search language's aggregation nodes (COUNT(*) is each
 * group's record count). Select items, HAVING and ORDER BY refer to keys and aggregates by expression, alias or
 * position; a column that is neither grouped nor aggregated is a problem, as in SQL.
 */
export function bindGroups(statement: SelectFromStatement, ctx: BindContext): Bound | undefined {
  const before = ctx.problems.length;
  const items = ctx.select.map((item) => ({ item, what: classify(item.expr, ctx) }));
  const keys: (GroupKey & { id: string })[] = [];
  const measures: (Measure & { id: string })[] = [];

  const aliased = (expr: Expr): Classified | undefined => {
    if (expr.type !== 'ref' || expr.table || expr.name === '*') return undefined;
    if (resolveField(rootScope(ctx.table.searchable), expr.name)) return undefined;
    return items.find(({ item }) => item.alias?.name === expr.name)?.what;
  };
  const ordinal = (what: Classified | undefined, at: number) => {
    if (what?.kind !== 'ordinal') return what;
    const item = items[what.position - 1];
    if (!item) ctx.problem(at, `position ${what.position} is not a select item (there are ${items.length})`);
    return item?.what;
  };

  for (const expr of statement.groupBy ?? []) {
    const at = expr._location?.start ?? 0;
    const what = ordinal(aliased(expr) ?? classify(expr, ctx), at);
    if (!what) continue;
    if (what.kind !== 'column' && what.kind !== 'trunc') {
      ctx.problem(at, 'GROUP BY takes columns and DATE_TRUNC (by expression, alias or position)');
      continue;
    }
    const trunc = what.kind === 'trunc' ? what.unit : undefined;
    const id = `${trunc ?? '='}:${what.path}`;
    if (keys.some((k) => k.id === id)) continue;
    if (!trunc && !aggregatable(what.field, 'CountAgg')) {
      ctx.problem(
        at,
        `cannot group by '${what.path}': GROUP BY takes string, number, integer, decimal, boolean and date-time columns`,
      );
      continue;
    }
    keys.push({ id, field: what.field, type: trunc ? 'datetime' : typeOfField(what), trunc });
  }

  const measure = (what: Classified, at: number): Operand | undefined => {
    if (what.kind === 'count_all') {
      const index = measures.findIndex((m) => m.id === 'count(*)');
      if (index >= 0) return { kind: 'measure', index };
      measures.push({ id: 'count(*)', count: 'all' });
      return { kind: 'measure', index: measures.length - 1 };
    }
    if (what.kind !== 'aggregate') return undefined;
    const kind: AggKind = what.distinct ? 'DistinctAgg' : KIND_OF[what.fn]!;
    const id = `${kind}:${what.path}`;
    const index = measures.findIndex((m) => m.id === id);
    if (index >= 0) return { kind: 'measure', index };
    const type = aggregatable(what.field, kind);
    if (!type) {
      const name = what.distinct ? 'COUNT(DISTINCT)' : what.fn.toUpperCase();
      ctx.problem(at, `${name} does not apply to '${what.path}' (${typeOfField(what)})`);
      return undefined;
    }
    const agg: AggNode = CREATE[kind as keyof typeof CREATE].create({
      name: `m${measures.length}`,
      field: what.field,
      type,
    });
    measures.push({ id, agg });
    return { kind: 'measure', index: measures.length - 1 };
  };

  const operand = (what: Classified, at: number): Operand | undefined => {
    if (what.kind === 'column' || what.kind === 'trunc') {
      const id = `${what.kind === 'trunc' ? what.unit : '='}:${what.path}`;
      const index = keys.findIndex((k) => k.id === id);
      if (index >= 0) return { kind: 'key', index };
      ctx.problem(at, `'${what.path}' must appear in GROUP BY or be used in an aggregate`);
      return undefined;
    }
    if (what.kind === 'count_all' || what.kind === 'aggregate') return measure(what, at);
    ctx.problem(
      at,
      what.kind === 'star' ? 'SELECT * cannot be grouped; name the columns' : 'expected a column or an aggregate',
    );
    return undefined;
  };

  const columns: (SqlColumn & { operand: Operand })[] = [];
  for (const { item, what } of items) {
    const at = item.expr._location?.start ?? 0;
    const op = what && operand(what, at);
    if (!what || !op) continue;
    const agg = op.kind === 'measure' ? (measures[op.index] as { agg?: AggNode }).agg : undefined;
    columns.push({
      name: item.alias?.name ?? defaultName(what),
      type: operandType(op, keys, measures),
      operand: op,
      ...(agg?.kind === 'DistinctAgg' ? { approximate: { precision_threshold: DISTINCT_PRECISION } } : {}),
    });
  }

  const value = (expr: Expr): { operand: Operand } | { literal: ReturnType<typeof literalOf> & {} } | undefined => {
    const at = expr._location?.start ?? 0;
    // In HAVING a number is a value, never a position.
    const literal = literalOf(expr, ctx.text);
    if (literal) return { literal };
    const what = aliased(expr) ?? classify(expr, ctx);
    const op = what && operand(what, at);
    return op && { operand: op };
  };

  const compare = (op: Comparison, left: Expr, right: Expr, at: number): Condition | undefined => {
    const l = value(left);
    const r = value(right);
    if (!l || !r) return undefined;
    if ('literal' in l && 'literal' in r) {
      ctx.problem(at, 'HAVING compares an aggregate or a group column with a value');
      return undefined;
    }
    const flipped = 'literal' in l;
    const [a, b] = flipped ? [r, l] : [l, r];
    const target = (a as { operand: Operand }).operand;
    const type = operandType(target, keys, measures);
    let other: Operand;
    if ('literal' in b) {
      const literal = b.literal;
      if (literal.kind === 'null') other = { kind: 'literal', value: null };
      else {
        const checked = checkValue(type as ValueType, literalValue(literal, type) as string | number | boolean);
        if (!checked.ok) {
          ctx.problem((flipped ? left : right)._location?.start ?? at, checked.message);
          return undefined;
        }
        other = { kind: 'literal', value: checked.value };
      }
    } else other = b.operand;
    return { kind: 'compare', op: flipped ? FLIPPED[op] : op, left: target, right: other, type };
  };

  const condition = (expr: Expr): Condition | undefined => {
    const at = expr._location?.start ?? 0;
    if (expr.type === 'binary' && (expr.op === 'AND' || expr.op === 'OR')) {
      const parts = [condition(expr.left), condition(expr.right)];
      if (parts.some((p) => !p)) return undefined;
      return { kind: expr.op === 'AND' ? 'and' : 'or', conditions: parts as Condition[] };
    }
    if (expr.type === 'unary' && expr.op === 'NOT') {
      const inner = condition(expr.operand);
      return inner && { kind: 'not', condition: inner };
    }
    if (expr.type === 'unary' && (expr.op === 'IS NULL' || expr.op === 'IS NOT NULL')) {
      return compare(expr.op === 'IS NULL' ? 'eq' : 'neq', expr.operand, { type: 'null' }, at);
    }
    if (expr.type === 'binary' && COMPARISONS[expr.op])
      return compare(COMPARISONS[expr.op]!, expr.left, expr.right, at);
    if (expr.type === 'binary' && (expr.op === 'IN' || expr.op === 'NOT IN')) {
      // The parser reads `IN (3)` as `IN 3`: a one-value list.
      const list = expr.right.type === 'list' ? expr.right.expressions : [expr.right];
      const parts = list.map((e) => compare('eq', expr.left, e, at));
      if (parts.some((p) => !p) || parts.length === 0) return undefined;
      const any: Condition = { kind: 'or', conditions: parts as Condition[] };
      return expr.op === 'IN' ? any : { kind: 'not', condition: any };
    }
    if (expr.type === 'ternary') {
      const lo = compare('gte', expr.value, expr.lo, at);
      const hi = compare('lte', expr.value, expr.hi, at);
      if (!lo || !hi) return undefined;
      const both: Condition = { kind: 'and', conditions: [lo, hi] };
      return expr.op === 'BETWEEN' ? both : { kind: 'not', condition: both };
    }
    ctx.problem(at, 'HAVING takes comparisons (= <> < <= > >=, IN, BETWEEN, IS NULL) joined by AND, OR and NOT');
    return undefined;
  };
  const having = statement.having ? condition(statement.having) : undefined;

  const order: OrderKey[] = [];
  for (const o of statement.orderBy ?? []) {
    const at = o.by._location?.start ?? 0;
    if (o.nulls === 'FIRST') ctx.problem(at, 'missing values sort last either way; NULLS FIRST is not supported');
    let op: Operand | undefined;
    if (o.by.type === 'integer') {
      const column = columns[o.by.value - 1];
      if (!column) ctx.problem(at, `ORDER BY ${o.by.value}: there are ${columns.length} columns`);
      op = column?.operand;
    } else {
      const alias = o.by.type === 'ref' ? columns.find((c) => c.name === (o.by as { name: string }).name) : undefined;
      const what = alias ? undefined : classify(o.by, ctx);
      op = alias?.operand ?? (what && operand(what, at));
    }
    if (op) order.push({ operand: op, direction: o.order === 'DESC' ? 'desc' : 'asc' });
  }

  if (ctx.problems.length > before) return undefined;
  return {
    keys: keys.map(({ id: _, ...k }) => k),
    measures: measures.map(({ id: _, ...m }) => m as Measure),
    having,
    order,
    columns,
  };
}

function typeOfField(what: { field: { storage: string; spec?: { type: string } } }): string {
  return what.field.storage === 'typed' ? what.field.spec!.type : 'unknown';
}

function defaultName(what: Classified): string {
  switch (what.kind) {
    case 'column':
      return what.path;
    case 'trunc':
      return 'date_trunc';
    case 'count_all':
      return 'count';
    case 'aggregate':
      return what.fn;
    default:
      return '?column?';
  }
}

/** The type of a key's or an aggregate's values. */
export function operandType(op: Operand, keys: readonly GroupKey[], measures: readonly Measure[]): string {
  if (op.kind === 'key') return keys[op.index]!.type;
  if (op.kind === 'literal') return 'unknown';
  const m = measures[op.index]!;
  if (!('agg' in m)) return 'integer';
  switch (m.agg.kind) {
    case 'CountAgg':
    case 'DistinctAgg':
      return 'integer';
    case 'AvgAgg':
      return m.agg.type === 'integer' ? 'number' : m.agg.type;
    default:
      return m.agg.type;
  }
}
